/**
 * The six kota_* tools: each maps its arguments onto one KotaDB core tool (with KotaDB's defaults
 * and caps), checks the index first (a repo that was never indexed answers "call kota_index", not an
 * empty result), and renders KotaDB's pretty JSON compact and summary-first.
 */
import { isAbsolute, relative } from "node:path";
import type { TSchema } from "typebox";
import { type GovernedToolDefinition, InvalidInputError, textContent, type ToolCallContext } from "../../core/index.ts";
import { KOTA_TAG, MCP_TAG, serverTag, STATUS_TAG } from "../../lib/tags/index.ts";
import type { Indexer } from "./index-flow.ts";
import { clampArg, KOTA_TASK_FILES_MAX } from "./caps.ts";
import { unknownArgumentsText } from "./known-args.ts";
import { depsParams, impactParams, indexParams, searchParams, taskContextParams, usagesParams } from "./params.ts";
import { renderDeps } from "./render/deps.ts";
import { renderImpact } from "./render/impact.ts";
import { renderSearch } from "./render/search.ts";
import { renderTaskContext } from "./render/task-context.ts";
import { renderUsages } from "./render/usages.ts";
import type { KotaRuntime } from "./runtime.ts";

/** Labels every kota tool carries (plugins match on them; `server:kota` groups them for a per-server circuit breaker). */
export const KOTA_TAGS = [KOTA_TAG, MCP_TAG, serverTag("kota")];

/** A repo-relative path: `./x` and absolute paths inside the root become `x`. */
export function repoRelative(root: string, path: string): string {
  if (isAbsolute(path)) {
    const rel = relative(root, path);
    return rel.startsWith("..") ? path : rel.split("\\").join("/");
  }
  return path.replace(/^\.\/+/, "");
}

interface QueryToolSpec {
  name: string;
  label: string;
  description: string;
  /**
   * Bullets for pi's system prompt, only for a rule the description cannot carry. No promptSnippet:
   * the declaration's description is what the model picks a tool by, and every prompt line is paid
   * on every request.
   */
  promptGuidelines?: string[];
  parameters: TSchema;
  kotaTool: string;
  /** KotaDB arguments from the tool's arguments. */
  mapArgs(args: Readonly<Record<string, unknown>>, root: string): Record<string, unknown>;
  render(answer: Record<string, unknown>, args: Record<string, unknown>): string;
}

function queryTool(runtime: KotaRuntime, spec: QueryToolSpec): GovernedToolDefinition {
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    // KotaDB answers from its local index of the repository: nothing outside the machine moves it.
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    tags: [...KOTA_TAGS],
    ...(spec.promptGuidelines ? { promptGuidelines: spec.promptGuidelines } : {}),
    async execute(call: ToolCallContext) {
      refuseUnknownArguments(spec.name, spec.parameters, call.args);
      const recovered = await runtime.indexer.recoverInterrupted(call.signal);
      await runtime.probe(call.signal);
      if ((await runtime.indexState()) === "no") {
        throw new InvalidInputError("the repository is not indexed yet", {
          agentMessage: "Call kota_index first (the user is asked to confirm), then repeat this call.",
        });
      }
      const stale = await runtime.staleNotice();
      const notice = [recovered, stale].filter(Boolean).join("\n") || undefined;
      const root = await runtime.root();
      const args = spec.mapArgs(call.args, root);
      const answer = await runtime.call(spec.kotaTool, args, call.signal);
      const text = spec.render(answer.json, args);
      const body = notice ? `${text}\n\n${notice}` : text;
      return { content: textContent(body), details: { kota: { tool: spec.kotaTool, rawBytes: answer.rawBytes, bytes: Buffer.byteLength(body) } } };
    },
  };
}

/** Throws an invalid-input error (never retried) when `args` holds an argument `schema` does not declare. */
export function refuseUnknownArguments(toolName: string, schema: TSchema, args: Readonly<Record<string, unknown>>): void {
  const text = unknownArgumentsText(toolName, schema, args);
  if (text) throw new InvalidInputError(text, { agentMessage: "Call it again with only the valid argument names." });
}

const bool = (v: unknown, fallback: boolean) => (typeof v === "boolean" ? v : fallback);
/** At most this many paths of one list argument are sent (the schemas leave the count to this cut). */
const MAX_PATHS = 50;
const list = (v: unknown, root: string) =>
  Array.isArray(v)
    ? v
        .filter((x): x is string => typeof x === "string" && x.length > 0)
        .slice(0, MAX_PATHS)
        .map((p) => repoRelative(root, p))
    : undefined;
/** kota_search scopes: the known ones, each once (the schema lists them; a call may arrive another way). */
const SCOPES = new Set(["code", "symbols", "decisions", "patterns", "failures"]);
const scopes = (v: unknown) => (Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === "string" && SCOPES.has(x)))] : []);

const SEARCH_TOOL: QueryToolSpec = {
  name: "kota_search",
  label: "KotaDB search",
  description: "Search indexed code or symbols. output: compact (default), paths (many hits) or snippet (matching lines).",
  parameters: searchParams,
  kotaTool: "search",
  mapArgs: (a) => {
    const out: Record<string, unknown> = {
      query: a.query,
      scope: scopes(a.scope).length ? scopes(a.scope) : ["code"],
      output: typeof a.output === "string" ? a.output : "compact",
      limit: clampArg("kota_search", "limit", a.limit),
    };
    if (out.output === "snippet") out.context_lines = clampArg("kota_search", "context_lines", a.context_lines);
    if (a.filters && typeof a.filters === "object") out.filters = a.filters;
    return out;
  },
  render: (answer) => renderSearch(answer),
};

const DEPS_TOOL: QueryToolSpec = {
  name: "kota_deps",
  label: "KotaDB dependencies",
  description: "Dependents (files importing it) and dependencies (files it imports) of a file.",
  parameters: depsParams,
  kotaTool: "search_dependencies",
  mapArgs: (a, root) => ({
    file_path: repoRelative(root, String(a.file_path ?? "")),
    direction: typeof a.direction === "string" ? a.direction : "both",
    depth: clampArg("kota_deps", "depth", a.depth),
    include_tests: bool(a.include_tests, false),
  }),
  render: (answer) => renderDeps(answer),
};

const USAGES_TOOL: QueryToolSpec = {
  name: "kota_usages",
  label: "KotaDB usages",
  description: "Where a symbol is used: imports, calls, re-exports, type references.",
  parameters: usagesParams,
  kotaTool: "find_usages",
  mapArgs: (a, root) => ({
    symbol: a.symbol,
    ...(typeof a.file === "string" ? { file: repoRelative(root, a.file) } : {}),
    include_tests: bool(a.include_tests, false),
  }),
  render: (answer) => renderUsages(answer),
};

const IMPACT_TOOL: QueryToolSpec = {
  name: "kota_impact",
  label: "KotaDB impact",
  description: "Risk, affected files and tests to run for a planned change; the summary stays in context.",
  promptGuidelines: ["Before changing a shared file, call kota_impact with the files you plan to modify."],
  parameters: impactParams,
  kotaTool: "analyze_change_impact",
  mapArgs: (a, root) => {
    const out: Record<string, unknown> = { change_type: a.change_type, description: a.description };
    for (const key of ["files_to_modify", "files_to_create", "files_to_delete"]) {
      const v = list(a[key], root);
      if (v?.length) out[key] = v;
    }
    if (typeof a.breaking_changes === "boolean") out.breaking_changes = a.breaking_changes;
    return out;
  },
  render: (answer) => renderImpact(answer),
};

const TASK_CONTEXT_TOOL: QueryToolSpec = {
  name: "kota_task_context",
  label: "KotaDB task context",
  description: "Briefing for a task's files: dependents, impacted files, tests, recent changes.",
  parameters: taskContextParams,
  kotaTool: "generate_task_context",
  mapArgs: (a, root) => ({
    files: (list(a.files, root) ?? []).slice(0, KOTA_TASK_FILES_MAX),
    include_tests: bool(a.include_tests, true),
    include_symbols: bool(a.include_symbols, false),
    max_impacted_files: clampArg("kota_task_context", "max_impacted_files", a.max_impacted_files),
  }),
  render: (answer, args) => renderTaskContext(answer, Number(args.max_impacted_files)),
};

/** The query tools, in the order pi lists them. */
const QUERY_TOOLS = [SEARCH_TOOL, DEPS_TOOL, USAGES_TOOL, IMPACT_TOOL, TASK_CONTEXT_TOOL];

/** `kota_index`: indexing asks the user first (indexer.ts). */
function kotaIndexTool(runtime: KotaRuntime, indexer: Indexer): GovernedToolDefinition {
  return {
    name: "kota_index",
    label: "KotaDB index",
    description: "Index the repository for the kota_* tools (asks the user); needed once and when stale.",
    parameters: indexParams,
    // Not marked safe to repeat: retry must not re-run (and re-confirm) a slow index on its own.
    annotations: { readOnlyHint: false, idempotentHint: false },
    tags: [...KOTA_TAGS],
    async execute(call) {
      refuseUnknownArguments("kota_index", indexParams, call.args);
      const outcome = await indexer.request({
        ui: runtime.services.ui(),
        requester: "The model",
        ...(typeof call.args.path === "string" ? { path: call.args.path } : {}),
        force: call.args.force === true,
        signal: call.signal,
      });
      return { content: textContent(outcome.text), details: { kota: { tool: "index_repository", outcome: outcome.status } } };
    },
  };
}

/** Builds the six tools over one runtime and indexer. */
export function kotaTools(runtime: KotaRuntime, indexer: Indexer): GovernedToolDefinition[] {
  return [kotaIndexTool(runtime, indexer), ...QUERY_TOOLS.map((spec) => queryTool(runtime, spec))];
}

/**
 * `kota_status`: the connection-status tool for the model (state, uptime, reconnect history, last
 * error, index statistics and recent files). Not governed, so it answers while a breaker is open or
 * the server is degraded: exactly when the model needs it.
 */
export function kotaStatusTool(report: () => Promise<string>): GovernedToolDefinition {
  const parameters = { type: "object", properties: {} } as unknown as TSchema;
  return {
    name: "kota_status",
    label: "KotaDB status",
    description: "KotaDB server and index state. Call it after a kota_* tool reports a lost connection.",
    parameters,
    annotations: { readOnlyHint: true },
    tags: [STATUS_TAG, ...KOTA_TAGS],
    governed: false,
    execute: async (call) => {
      refuseUnknownArguments("kota_status", parameters, call.args);
      return { content: textContent(await report()) };
    },
  };
}

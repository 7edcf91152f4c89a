import { Type } from "typebox";
import { stringEnum } from "../../lib/schema/index.ts";
import { InvalidInputError, textContent, type GovernedToolDefinition, type ToolExecuteResult } from "../../core/index.ts";
import { REHYDRATION_TAG } from "../../lib/tags/index.ts";
import type { BlobStore } from "../../lib/blobs/index.ts";
import { formatHits } from "./format.ts";
import { scopeFilter, searchLive, type SearchScope } from "./search.ts";
import type { RecallWriter } from "./writer.ts";

/** The model's search tool name. */
export const CONTEXT_SEARCH_TOOL = "context_search";

/** The tool's parameters, offering only `scopes` (the user allows "all" in the global config only). */
function parametersFor(scopes: readonly SearchScope[]) {
  return Type.Object({
    query: Type.String({ description: "Identifiers (or part of one), paths, error text" }),
    tool: Type.Optional(Type.String()),
    scope: Type.Optional(
      stringEnum([...scopes], {
        description: scopes.includes("all") ? "Default session; project: this directory; all: every project" : "Default session; project: this directory",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Default 5" })),
  });
}

/**
 * `context_search`: full-text search (BM25) over every tool output of the session, including those
 * pruned from the context or cut to an excerpt. Each hit names the exact `blob_read` call that opens
 * its lines byte-exact. Tagged `rehydration`: its answers are never cut into a blob, pruned by size
 * rules, or counted by the budget and breaker.
 */
export function contextSearchTool(deps: {
  writer: RecallWriter;
  store: BlobStore;
  cwd: string;
  answerBytes: number;
  defaultLimit: number;
  /** The scopes offered; default session and project ("all" reads other projects' outputs: the user's opt-in). */
  scopes?: readonly SearchScope[];
  now?: () => number;
}): GovernedToolDefinition {
  const scopes = deps.scopes ?? ["session", "project"];
  const parameters = parametersFor(scopes);
  return {
    name: CONTEXT_SEARCH_TOOL,
    label: "Search earlier output",
    description: "Search earlier tool outputs, pruned ones too. Each hit names the blob_read call that reads it back.",
    parameters,
    tags: [REHYDRATION_TAG],
    annotations: { readOnlyHint: true, idempotentHint: true },
    async execute(call): Promise<ToolExecuteResult> {
      const args = call.args as { query?: unknown; tool?: unknown; scope?: unknown; limit?: unknown };
      const query = typeof args.query === "string" ? args.query.trim() : "";
      if (!query)
        throw new InvalidInputError("context_search needs a non-empty query", {
          agentMessage: 'Pass query: the words to find, e.g. {"query": "BlobStore put"}.',
        });
      const scope = (args.scope ?? "session") as SearchScope;
      // Checked here too: a nested call (codemode) reaches execute without pi's schema validation.
      if (!scopes.includes(scope)) {
        const allowed = scopes.map((s) => `"${s}"`).join(", ");
        throw new InvalidInputError(`scope must be one of ${allowed}, got ${JSON.stringify(args.scope)}`, {
          agentMessage: `Use scope ${allowed} (default "session").`,
        });
      }
      const limit = typeof args.limit === "number" && Number.isFinite(args.limit) ? Math.max(1, Math.min(50, Math.floor(args.limit))) : deps.defaultLimit;
      await deps.writer.flush();
      const index = await deps.writer.index();
      if (!index) {
        throw new InvalidInputError(`the search index is unavailable${deps.writer.broken ? ` (${deps.writer.broken})` : " (busy)"}`, {
          agentMessage: "Search is unavailable; use blob_read with a blobId from a placeholder, or re-run the original tool call narrowed.",
        });
      }
      const filter = { ...scopeFilter(scope, call.sessionId, deps.cwd), ...(typeof args.tool === "string" && args.tool ? { tool: args.tool } : {}), limit };
      const { hits, relaxed } = await searchLive(index, deps.store, query, filter);
      const text = formatHits(query, hits, { nowMs: (deps.now ?? Date.now)(), maxBytes: deps.answerBytes, relaxed, scope, showSession: scope !== "session" });
      return { content: textContent(text), details: { hits: hits.length, scope } };
    },
  };
}

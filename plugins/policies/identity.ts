/**
 * Which names a rule's tool glob is matched against for one call. An MCP server's tool has one
 * identity (server + tool) under several names: pi's `mcp__<server>__<tool>`, pi-governor's
 * `<server>_<tool>` for a managed (handed-over) server, and pi's resource tools naming the server in
 * their `server` argument. A glob in either spelling matches the call under both, compared as pi
 * writes names (every character other than letters, digits and `_` as `_`, so `acme_get-sum` and
 * `mcp__acme__get_sum` name one tool). A resource listing without a server is judged once per
 * server it may reach, and the strictest decision wins.
 *
 * pi 1.x cuts a tool name longer than 64 characters (or one two tools share) and appends a hash
 * (lib/mcp-identity/tool-identity.ts). Such a call is judged as written and as the server's tool, strictest
 * first. Where the name was cut, only the start of the tool's name is known: a glob that may name
 * the tool (`deny`, `ask`, a limit) counts, and an `allow` glob counts only when it names every tool
 * with that start (ends with `*`) or names this tool exactly, which pi's hash tells. Where pi cut
 * inside the server's name, the server is the one pi's namespace for the tool names, or else each
 * server pi runs or reports whose name fits (strictest of them); a tool's exact name names the call
 * only when pi's hash says it is that tool.
 */
import type { McpToolIdentity, ToolGateInfo, ToolInfo } from "../../core/index.ts";
import {
  mcpNormalized,
  mcpSpellings,
  PI_BUILTIN_TOOLS,
  PI_MCP_RESOURCE_TOOLS,
  piMcpToolName,
  piToolHash,
  serverCutIdentity,
} from "../../lib/mcp-identity/index.ts";
import { type AccessDecision, decideAccess } from "./access.ts";
import type { PoliciesOptions } from "./config.ts";
import { MAX_PI_SERVERS } from "./pi-mcp-servers.ts";
import { globCouldStartWith, toolGlobMatches } from "./tool-glob.ts";

/** One name set a call is judged under: its own name, and the MCP server tool it reaches. */
export interface CallSubject {
  readonly toolName: string;
  readonly mcp?: McpToolIdentity;
  /** pi's spelling of the identity, normalized (only its start when `mcp.truncated`). */
  readonly piName?: string;
  /** pi-governor's spelling, unless that is the name of another tool (a rule for it must not catch this one). */
  readonly governedName?: string;
  /** The name pi gives this tool when it cuts or hashes it (a rule may be written with pi's name). */
  readonly piHashedName?: string;
}

/** How surely a glob must name a subject whose name pi cut: it may (deny, ask, limits), or it does (allow). */
export type MatchMode = "could" | "must";

/** A decision and the subject that drew it (the server a listing without one was refused for). */
export interface SubjectDecision {
  decision: AccessDecision;
  subject: CallSubject;
  /** The call reaches every server (a resource listing without `server`). */
  everyServer: boolean;
}

const STRICTNESS = { allow: 1, ask: 2, deny: 3 } as const;

/** Names of tools and the identity each serves (null: a tool that serves no MCP server). */
type NameOwners = Map<string, McpToolIdentity | null>;
/** pi's plain name of each managed server tool, and how many tools share it (pi hashes shared names). */
type PiNameCounts = Map<string, number>;

/** The subjects of calls, over the tools pi-governor knows (its own, sealed) and pi's configured servers. */
export class CallIdentities {
  private owners: NameOwners | undefined;
  private piNameCounts: PiNameCounts | undefined;

  constructor(
    private readonly config: Pick<PoliciesOptions, "deny" | "rules" | "limits">,
    private readonly governedTools: () => Iterable<ToolInfo>,
    /** The servers pi runs from its mcp.json files (a listing without a server reaches them); undefined: too many to judge. */
    private readonly configuredServers: () => readonly string[] | undefined,
  ) {}

  /**
   * The subjects `call` is judged under, or the refusal of a listing that reaches more servers than
   * are judged one by one (while any rule, deny glob or limit is set; without any it runs).
   */
  subjects(call: Pick<ToolGateInfo, "toolName" | "mcp">): CallSubject[] | string {
    const reach = call.mcp;
    if (!reach) return [{ toolName: call.toolName }];
    let targets = reach.targets;
    if (reach.serverCut) {
      // pi cut the name inside a server's name: each server pi runs whose name fits may be the one.
      const servers = new Set(targets.map((t) => t.server));
      const more = (this.configuredServers() ?? []).filter((s) => !servers.has(s)).flatMap((s) => serverCutIdentity(call.toolName, s) ?? []);
      targets = [...targets, ...more];
    }
    if (reach.everyServer) {
      const configured = this.configuredServers();
      const servers = new Set(targets.map((t) => t.server));
      for (const s of configured ?? []) servers.add(s);
      if (!configured || reach.incomplete || servers.size > MAX_PI_SERVERS) {
        const { deny, rules, limits } = this.config;
        if (!deny.length && !rules.length && !limits.length) return [{ toolName: call.toolName }];
        const why = reach.incomplete
          ? "may reach MCP servers pi does not list (registered by an extension), which the policy cannot judge"
          : `reaches more MCP servers than the policy judges one by one (over ${MAX_PI_SERVERS})`;
        return `Refused: ${call.toolName} without "server" ${why}; name the server in "server".`;
      }
      targets = [...servers].map((server) => ({ server, tool: call.toolName }));
    }
    if (!targets.length) return [{ toolName: call.toolName }];
    // A name that may carry pi's hash is judged both ways, unless a glob of the config names the tool
    // exactly and pi's hash confirms it: then the name surely is pi's hashed one.
    const hashed = !reach.everyServer ? targets.find((id) => id.hash !== undefined && this.confirmed(id)) : undefined;
    return (hashed ? [hashed] : targets).map((id) => this.subjectOf(call.toolName, id));
  }

  /** Whether a glob of the config is pi's or pi-governor's spelling of exactly the tool `id`'s hash names. */
  private confirmed(id: McpToolIdentity): boolean {
    const { deny, rules, limits } = this.config;
    return [...deny, ...rules.map((r) => r.tools), ...limits.map((l) => l.tools)].some((glob) => namesByHash(glob, id));
  }

  /** The subject for a known identity (also used by the load check). */
  subjectOf(toolName: string, id: McpToolIdentity): CallSubject {
    const { pi, governed } = mcpSpellings(id);
    const owner = this.nameOwners().get(governed);
    const other = owner === null || (owner !== undefined && !sameIdentity(owner, id));
    // The name pi would give the tool when it hashes it (a managed server's tool handed over from pi).
    const hashed = id.hash === undefined ? piMcpToolName(id, (this.piNameCounts!.get(pi) ?? 0) > 1) : pi;
    return { toolName, mcp: id, piName: pi, ...(other ? {} : { governedName: governed }), ...(hashed !== pi ? { piHashedName: hashed } : {}) };
  }

  private nameOwners(): NameOwners {
    if (this.owners) return this.owners;
    const owners: NameOwners = new Map(PI_BUILTIN_TOOLS.map((n) => [mcpNormalized(n), null]));
    const counts: PiNameCounts = new Map();
    for (const tool of this.governedTools()) {
      owners.set(mcpNormalized(tool.name), tool.mcp ?? null);
      if (tool.mcp) {
        const { pi } = mcpSpellings(tool.mcp);
        counts.set(pi, (counts.get(pi) ?? 0) + 1);
      }
    }
    this.owners = owners;
    this.piNameCounts = counts;
    return owners;
  }
}

function sameIdentity(a: McpToolIdentity, b: McpToolIdentity): boolean {
  return mcpNormalized(a.server) === mcpNormalized(b.server) && mcpNormalized(a.tool) === mcpNormalized(b.tool);
}

/**
 * Whether `glob` names `subject`: its own name, or (normalized) either spelling of the server tool it
 * reaches, or pi's hashed name of it. Where pi cut the tool's name, `mode` says whether a glob that
 * may name it counts ("could", the default) or only one that surely does ("must").
 */
export function globNames(glob: string, subject: CallSubject, mode: MatchMode = "could"): boolean {
  if (toolGlobMatches(glob, subject.toolName)) return true;
  if (!subject.piName) return false;
  const normalized = mcpNormalized(glob);
  if (subject.piHashedName !== undefined && toolGlobMatches(normalized, subject.piHashedName)) return true;
  const names = subject.governedName === undefined ? [subject.piName] : [subject.piName, subject.governedName];
  const id = subject.mcp!;
  if (!id.truncated) return names.some((name) => toolGlobMatches(normalized, name));
  // Cut inside the server's name, the tool is known only by pi's hash: a tool's exact name names it
  // when the hash says so; a glob names it when it may name one of the server's tools.
  if (id.tool === "" && !normalized.includes("*")) return namesByHash(glob, id);
  if (mode === "could") return names.some((name) => globCouldStartWith(normalized, name));
  return (normalized.endsWith("*") && names.some((name) => toolGlobMatches(normalized, name))) || namesByHash(glob, id);
}

/** Whether `glob` (no `*`) is pi's or pi-governor's spelling of exactly the tool whose hash `id` carries. */
function namesByHash(glob: string, id: McpToolIdentity): boolean {
  if (id.hash === undefined || glob.includes("*")) return false;
  const server = mcpNormalized(id.server);
  const normalized = mcpNormalized(glob);
  // Normalizing keeps every character's place, so the tool's name as written follows the same prefix.
  return [`mcp__${server}__`, `${server}_`].some((prefix) => normalized.startsWith(prefix) && piToolHash(id.server, glob.slice(prefix.length)) === id.hash);
}

/** The strictest decision over the subjects of `call` (deny, then ask, then allow; the first of equals). */
export function decideSubjects(
  config: Pick<PoliciesOptions, "deny" | "rules">,
  subjects: readonly CallSubject[],
  call: Pick<ToolGateInfo, "annotations" | "mcp">,
): SubjectDecision {
  const everyServer = call.mcp?.everyServer === true;
  let best: SubjectDecision = { decision: undefined, subject: subjects[0]!, everyServer };
  for (const subject of subjects) {
    const decision = decideAccess(config.rules, config.deny, subject.toolName, call.annotations, (glob, action) =>
      globNames(glob, subject, action === "allow" ? "must" : "could"),
    );
    if (decision && (!best.decision || STRICTNESS[decision.action] > STRICTNESS[best.decision.action])) best = { decision, subject, everyServer };
    if (best.decision?.action === "deny") break;
  }
  return best;
}

/** For pi's resource tools, which name the server in their arguments: which server the decision was for, as words after the tool's name. */
export function serverNamed(toolName: string, decided: SubjectDecision): string {
  const server = decided.subject.mcp?.server;
  if (server === undefined || !PI_MCP_RESOURCE_TOOLS.has(toolName)) return "";
  return decided.everyServer
    ? ` without "server" (it reaches every MCP server, "${server}" among them; name a server the policy allows)`
    : ` for MCP server "${server}"`;
}

/**
 * The tool glob of an `allow` rule that lets exactly this call's subject run: for pi's resource tools
 * the server's spelling (`mcp__<server>__read_mcp_resource`), since the bare tool name would allow
 * every server's resources.
 */
export function allowGlobFor(toolName: string, decided: SubjectDecision): string {
  const piName = decided.subject.piName;
  return PI_MCP_RESOURCE_TOOLS.has(toolName) && piName && !decided.everyServer ? piName : toolName;
}

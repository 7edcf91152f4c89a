/**
 * Which names a rule's tool glob is matched against for one call. An MCP server's tool has one
 * identity (server + tool) under several names: pi's `mcp__<server>__<tool>`, pi-governor's
 * `<server>_<tool>` for a managed (handed-over) server, and pi's resource tools naming the server in
 * their `server` argument. A glob in either spelling matches the call under both, compared as pi
 * writes names (every character other than letters, digits and `_` as `_`, so `acme_get-sum` and
 * `mcp__acme__get_sum` name one tool). A resource listing without a server is judged once per
 * server it may reach, and the strictest decision wins.
 */
import type { McpToolIdentity, ToolGateInfo, ToolInfo } from "../../core/sdk.ts";
import { mcpNormalized, mcpSpellings, PI_BUILTIN_TOOLS, PI_MCP_RESOURCE_TOOLS } from "../../lib/mcp-identity/index.ts";
import { type AccessDecision, decideAccess } from "./access.ts";
import type { PoliciesOptions } from "./config.ts";
import { MAX_PI_SERVERS } from "./pi-mcp-servers.ts";
import { toolGlobMatches } from "./tool-glob.ts";

/** One name set a call is judged under: its own name, and the MCP server tool it reaches. */
export interface CallSubject {
  readonly toolName: string;
  readonly mcp?: McpToolIdentity;
  /** pi's spelling of the identity, normalized. */
  readonly piName?: string;
  /** pi-governor's spelling, unless that is the name of another tool (a rule for it must not catch this one). */
  readonly governedName?: string;
}

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

/** The subjects of calls, over the tools pi-governor knows (its own, sealed) and pi's configured servers. */
export class CallIdentities {
  private owners: NameOwners | undefined;

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
    if (reach.everyServer) {
      const configured = this.configuredServers();
      const servers = new Set(targets.map((t) => t.server));
      for (const s of configured ?? []) servers.add(s);
      if (!configured || servers.size > MAX_PI_SERVERS) {
        const { deny, rules, limits } = this.config;
        if (!deny.length && !rules.length && !limits.length) return [{ toolName: call.toolName }];
        return `Refused: ${call.toolName} without "server" reaches more MCP servers than the policy judges one by one (over ${MAX_PI_SERVERS}); name the server in "server".`;
      }
      targets = [...servers].map((server) => ({ server, tool: call.toolName }));
    }
    if (!targets.length) return [{ toolName: call.toolName }];
    return targets.map((id) => this.subjectOf(call.toolName, id));
  }

  /** The subject for a known identity (also used by the load check). */
  subjectOf(toolName: string, id: McpToolIdentity): CallSubject {
    const { pi, governed } = mcpSpellings(id);
    const owner = this.nameOwners().get(governed);
    const other = owner === null || (owner !== undefined && !sameIdentity(owner, id));
    return { toolName, mcp: id, piName: pi, ...(other ? {} : { governedName: governed }) };
  }

  private nameOwners(): NameOwners {
    if (this.owners) return this.owners;
    const owners: NameOwners = new Map(PI_BUILTIN_TOOLS.map((n) => [mcpNormalized(n), null]));
    for (const tool of this.governedTools()) owners.set(mcpNormalized(tool.name), tool.mcp ?? null);
    this.owners = owners;
    return owners;
  }
}

function sameIdentity(a: McpToolIdentity, b: McpToolIdentity): boolean {
  return mcpNormalized(a.server) === mcpNormalized(b.server) && mcpNormalized(a.tool) === mcpNormalized(b.tool);
}

/** Whether `glob` names `subject`: its own name, or (normalized) either spelling of the server tool it reaches. */
export function globNames(glob: string, subject: CallSubject): boolean {
  if (toolGlobMatches(glob, subject.toolName)) return true;
  if (!subject.piName) return false;
  const normalized = mcpNormalized(glob);
  return toolGlobMatches(normalized, subject.piName) || (subject.governedName !== undefined && toolGlobMatches(normalized, subject.governedName));
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
    const decision = decideAccess(config.rules, config.deny, subject.toolName, call.annotations, (glob) => globNames(glob, subject));
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

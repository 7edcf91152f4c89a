/**
 * Rule and deny globs that match no tool pi-governor knows of when it loads: a typo
 * (`mcp__acme__ehco*`), a server renamed, a tool the server no longer offers. Known at load: pi's
 * built-in tools, pi-governor's tools (a managed server's tools under both spellings), and the
 * servers pi runs from its mcp.json (their tools are listed only once they connect, so a glob that
 * could name one of their tools counts). Another extension's tools are not known at load.
 */
import type { ToolInfo } from "../../core/index.ts";
import { mcpNormalized, PI_BUILTIN_TOOLS } from "../../lib/mcp-identity/index.ts";
import type { PoliciesOptions } from "./config.ts";
import { type CallIdentities, globNames } from "./identity.ts";
import { globCouldStartWith } from "./tool-glob.ts";

/** Most known tool names the check compares each glob with; beyond it the check is skipped (it would cost too much at load). */
const MAX_KNOWN_TOOLS = 4_096;

/** Every glob of the config with where it is written: `policies.deny[0]`, `policies.rules[2].tools`, `policies.limits[1].tools`. */
function globsOf(config: PoliciesOptions): Array<{ where: string; glob: string }> {
  return [
    ...config.deny.map((glob, i) => ({ where: `policies.deny[${i}]`, glob })),
    ...config.rules.map((r, i) => ({ where: `policies.rules[${i}].tools`, glob: r.tools })),
    ...config.limits.map((l, i) => ({ where: `policies.limits[${i}].tools`, glob: l.tools })),
  ];
}

/**
 * One line per glob that matches none of `governed` (pi-governor's tools), pi's built-in tools or
 * a tool of a server in `piServers` (those pi runs); empty when all match. A line that says the check
 * was skipped when there are more than 4096 tools.
 */
export function unmatchedGlobs(config: PoliciesOptions, governed: readonly ToolInfo[], piServers: readonly string[], identities: CallIdentities): string[] {
  const globs = globsOf(config);
  if (!globs.length) return [];
  if (governed.length + PI_BUILTIN_TOOLS.length > MAX_KNOWN_TOOLS)
    return [`the policies' tool globs were not checked against the ${governed.length} tools pi-governor offers (more than ${MAX_KNOWN_TOOLS})`];
  const subjects = [
    ...PI_BUILTIN_TOOLS.map((toolName) => ({ toolName })),
    ...governed.map((t) => (t.mcp ? identities.subjectOf(t.name, t.mcp) : { toolName: t.name })),
  ];
  // A server pi runs lists its tools only once it connects: any name under its prefixes may be one.
  const prefixes = piServers.flatMap((s) => [`mcp__${mcpNormalized(s)}__`, `${mcpNormalized(s)}_`]);
  const lines: string[] = [];
  for (const { where, glob } of globs) {
    const normalized = mcpNormalized(glob);
    const known = subjects.some((s) => globNames(glob, s)) || prefixes.some((prefix) => globCouldStartWith(normalized, prefix));
    if (!known)
      lines.push(
        `${where} "${glob}" matches no tool pi-governor knows of at load (pi's built-in tools, pi-governor's tools and its MCP servers' tools, the servers pi runs from mcp.json): check its spelling. Another extension's tools are not known at load.`,
      );
  }
  return lines;
}

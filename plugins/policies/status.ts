/**
 * The policies' lines in `/governor status`: how a rule names an MCP server's tool, what of pi's
 * MCP servers no rule can reach, and the globs that match no tool known at load.
 */
import type { PoliciesOptions } from "./config.ts";

/** The status lines; `unmatched` are the load check's lines (globs that match no known tool). */
export function policyStatusLines(config: PoliciesOptions, unmatched: readonly string[]): string[] {
  const counts = `${config.deny.length} deny glob(s), ${config.rules.length} rule(s), ${config.limits.length} limit(s)`;
  if (!config.deny.length && !config.rules.length && !config.limits.length) return [`${counts}: nothing is refused or limited`];
  return [
    counts,
    "An MCP server's tool is matched under pi's name (mcp__<server>__<tool>) and pi-governor's (<server>_<tool>, a managed or handed-over server); pi's resource tools (list_mcp_resources, list_mcp_resource_templates, read_mcp_resource) as calls of the server in their \"server\" argument, and without one as calls of every server pi may reach (connecting ones and those extensions registered included). A name pi cut and hashed is matched as the server's tool.",
    'Not matched (no tool call): what pi shows of its MCP servers itself: tool names and descriptions (tool_search; codemode\'s searchTools, describeTool, describeNamespace, ALL_TOOLS) and server instructions (the system prompt). To cut a server off whole, set "enabled": false or "exposure": "hidden" on it in pi\'s mcp.json.',
    unmatched.length
      ? `${unmatched.length} glob(s) match no tool or server known at load (listed under "Degraded at load"): ${unmatched.map((l) => l.split(" ")[0]).join(", ")}`
      : "every glob matches a tool or server known at load",
  ];
}

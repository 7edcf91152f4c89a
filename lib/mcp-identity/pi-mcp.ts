/**
 * pi's own MCP tools (pi 1.x): named `mcp__<server>__<tool>`, with every character of the server and
 * tool names other than letters, digits and `_` turned into `_`. pi-governor does not manage these
 * servers; it logs their calls, opens a circuit on a failing server, and tells the model the next step.
 */

/** Prefix of pi's own MCP tool names. */
export const PI_MCP_PREFIX = "mcp__";

/** Longest server name taken from a tool name (pi's names are short; a crafted one is not echoed whole). */
const MAX_SERVER_CHARS = 64;

/**
 * The server part of a pi MCP tool name (`mcp__github__search_code` -> `github`), or undefined for
 * any other tool. A server whose own name holds `__` is read up to its first `__`; its calls still
 * share one circuit.
 */
export function piMcpServerOf(toolName: string): string | undefined {
  if (!toolName.startsWith(PI_MCP_PREFIX)) return undefined;
  const rest = toolName.slice(PI_MCP_PREFIX.length);
  const end = rest.indexOf("__");
  const server = end > 0 ? rest.slice(0, end) : "";
  return /^[A-Za-z0-9_-]{1,64}$/.test(server) && server.length <= MAX_SERVER_CHARS ? server : undefined;
}

/**
 * The next step for a failed call of pi's MCP server `server`: pi's reconnect command, or moving the
 * server to pi-governor, which restarts it, retries and times its calls itself.
 */
export function piMcpNextStep(server: string): string {
  return (
    `pi's MCP server "${server}" failed. To reconnect it, the user runs \`/mcp reconnect ${server}\` in pi. ` +
    `To have pi-governor manage it (restart on crash, timeout, retry), move its entry from pi's mcp.json to pi-governor's global config \`mcp.servers\` (preset "mcp").`
  );
}

/**
 * Which MCP tools are offered to the model, decided for all servers at once, before any is
 * registered. Tool names and lists come from the servers (untrusted):
 *
 * - Names: `<server>_<tool>` can collide (server `fs` tool `remote_write` and server `fs_remote` tool
 *   `write`; or `a.b` and `a_b` after pi's character rules). A name two tools would get is ambiguous,
 *   so neither is offered (a call must never reach the wrong server), and one warning names both
 *   servers and tools. Every other tool of both servers stays. Names over pi's 64 characters are
 *   left out with a warning too.
 * - Size: each server offers its first tools in listed order, at most `maxTools` of them and
 *   `maxSchemaBytes` of schema JSON (name, title, description, inputSchema). One warning names the
 *   server, how many tools it listed, how many were offered and left out, the limit that ended the
 *   list, and the keys that raise the limits.
 */
import type { McpTool } from "../../lib/mcp/index.ts";
import { BLOB_READ_TOOL } from "../blobs/index.ts";
import { CONTEXT_SEARCH_TOOL } from "../recall/index.ts";
import { STATUS_TOOL } from "./status.ts";
import { governedToolName } from "./tool-bridge.ts";

/**
 * Names of pi-governor's own tools that a server's tool could otherwise take (server `blob`, tool
 * `read`): whichever registered first would win, and the plugin applied later would fail. Never
 * offered for an MCP tool.
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([BLOB_READ_TOOL, CONTEXT_SEARCH_TOOL, STATUS_TOOL]);

/** Default most tools one server offers. */
export const DEFAULT_MAX_TOOLS = 200;
/** Default most bytes of tool schemas one server offers (256 KiB, ~64k tokens on every request). */
export const DEFAULT_MAX_SCHEMA_BYTES = 256 * 1024;
/** Longest tool name pi accepts. */
const MAX_TOOL_NAME = 64;

/** One server's listed tools and limits. */
export interface ServerTools {
  server: string;
  tools: readonly McpTool[];
  maxTools: number;
  maxSchemaBytes: number;
}

/** What {@link selectTools} decided: tools to register per server, and one warning per problem. */
export interface ToolSelection {
  offered: Map<string, McpTool[]>;
  warnings: string[];
}

/** The bytes a tool adds to every request: its name, title, description and input schema as JSON. */
export function schemaBytes(tool: McpTool): number {
  return Buffer.byteLength(JSON.stringify({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema }), "utf8");
}

/** Decides the tools of every server (see the module comment). Order: config order, then listed order. */
export function selectTools(servers: readonly ServerTools[]): ToolSelection {
  const warnings: string[] = [];
  const capped = servers.map((s) => ({ server: s.server, tools: capTools(s, warnings) }));

  const owners = new Map<string, Array<{ server: string; tool: string }>>();
  for (const { server, tools } of capped) {
    for (const tool of tools) {
      const name = governedToolName(server, tool.name);
      const list = owners.get(name) ?? owners.set(name, []).get(name)!;
      list.push({ server, tool: tool.name });
    }
  }
  for (const [name, list] of owners) {
    if (list.length < 2) continue;
    const who = list.map((o) => `server "${o.server}" tool "${o.tool}"`).join(" and ");
    warnings.push(
      `MCP tool name "${name}" is ambiguous: ${who} would both get it, so neither is offered (a call must not reach the wrong server). Rename one server in mcp.servers so its tools get another prefix.`,
    );
  }

  const offered = new Map<string, McpTool[]>();
  for (const { server, tools } of capped) {
    const long: string[] = [];
    const reserved: string[] = [];
    offered.set(
      server,
      tools.filter((tool) => {
        const name = governedToolName(server, tool.name);
        if (name.length > MAX_TOOL_NAME) return (void long.push(tool.name.slice(0, 80)), false);
        if (RESERVED_TOOL_NAMES.has(name)) return (void reserved.push(`"${tool.name}" (${name})`), false);
        return owners.get(name)!.length === 1;
      }),
    );
    if (reserved.length)
      warnings.push(
        `MCP server "${server}": tool(s) ${reserved.join(", ")} left out: the name belongs to pi-governor's own tool. Rename the server in mcp.servers to offer them.`,
      );
    if (long.length)
      warnings.push(
        `MCP server "${server}": ${long.length} tool(s) left out because "${server}_<tool>" would be longer than ${MAX_TOOL_NAME} characters (${long
          .slice(0, 3)
          .map((n) => JSON.stringify(n))
          .join(", ")}${long.length > 3 ? ", ..." : ""}).`,
      );
  }
  return { offered, warnings };
}

/**
 * The server's first tools in listed order that stay within both limits (the first tool that does
 * not fit ends the list, so the rest is never measured); a warning when any were left out.
 */
function capTools(s: ServerTools, warnings: string[]): McpTool[] {
  const kept: McpTool[] = [];
  let keptBytes = 0;
  for (const tool of s.tools) {
    if (kept.length >= s.maxTools) break;
    const bytes = schemaBytes(tool);
    if (keptBytes + bytes > s.maxSchemaBytes) break;
    kept.push(tool);
    keptBytes += bytes;
  }
  const left = s.tools.length - kept.length;
  if (left > 0) {
    const n = (x: number) => x.toLocaleString("en-US");
    const limit = kept.length >= s.maxTools ? `maxTools ${n(s.maxTools)}` : `maxSchemaBytes ${n(s.maxSchemaBytes)}`;
    warnings.push(
      `MCP server "${s.server}" lists ${n(s.tools.length)} tools; the first ${n(kept.length)} are offered (${n(keptBytes)} bytes of schemas) and ${n(left)} left out by its ${limit}. ` +
        `Raise mcp.servers.${s.server}.maxTools (${n(s.maxTools)}) or maxSchemaBytes (${n(s.maxSchemaBytes)}) in the global config if you need more.`,
    );
  }
  return kept;
}

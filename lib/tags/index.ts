/**
 * The tool tags plugins match on ({@link ToolInfo.tags}), spelled once. A plugin that registers a
 * tool tags it with these; a plugin that treats tools differently by kind tests for them.
 */
import type { ToolInfo } from "../../core/index.ts";

/**
 * A tool that reads a stored output back (`blob_read`): never cut into another blob, no budget (it
 * brings its own bounds), no circuit (it reads a local file and must answer while circuits are open).
 */
export const REHYDRATION_TAG = "rehydration";

/** A status tool: answers from local state, reports on servers instead of calling them. */
export const STATUS_TAG = "status";

/** A tool served by an MCP server (any server). */
export const MCP_TAG = "mcp";

/** A tool of the kota preset (KotaDB through MCP). */
export const KOTA_TAG = "kota";

/** Prefix of the tag that names the MCP server behind a tool: `mcp:<server>`. */
export const MCP_SERVER_TAG_PREFIX = "mcp:";

/** Prefix of the tag that names the server behind a tool whatever its transport: `server:<name>`. */
export const SERVER_TAG_PREFIX = "server:";

/** The tag naming MCP server `server`: `mcp:<server>`. */
export function mcpServerTag(server: string): string {
  return `${MCP_SERVER_TAG_PREFIX}${server}`;
}

/** The tag naming server `name`: `server:<name>`. */
export function serverTag(name: string): string {
  return `${SERVER_TAG_PREFIX}${name}`;
}

/**
 * The server a tool's tags name: the first `server:<name>` or `mcp:<name>` tag, or undefined.
 * Tools sharing it share one circuit when the breaker's scope is "server".
 */
export function serverOfTags(tags: readonly string[]): string | undefined {
  for (const tag of tags) {
    if (tag.startsWith(SERVER_TAG_PREFIX) && tag.length > SERVER_TAG_PREFIX.length) return tag.slice(SERVER_TAG_PREFIX.length);
    if (tag.startsWith(MCP_SERVER_TAG_PREFIX) && tag.length > MCP_SERVER_TAG_PREFIX.length) return tag.slice(MCP_SERVER_TAG_PREFIX.length);
  }
  return undefined;
}

/** Whether `tool` carries `tag`. */
export function hasTag(tool: Pick<ToolInfo, "tags"> | undefined, tag: string): boolean {
  return !!tool && tool.tags.includes(tag);
}

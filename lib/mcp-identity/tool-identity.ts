/**
 * One identity for an MCP server's tool, whichever side runs the server. pi 1.x names a tool of its
 * own MCP client `mcp__<server>__<tool>`; pi-governor names a managed server's tool `<server>_<tool>`
 * (a server handed over with `mcp.fromPi` changes spelling, nothing else); pi's resource tools reach
 * a server named in their `server` argument. Rules are written against names, so a call is matched
 * under every spelling of the server tool it reaches: `{ server, tool }`.
 */
import { createHash } from "node:crypto";

import type { McpReach, McpToolIdentity } from "../../core/index.ts";

/**
 * pi's resource tools (pi 1.x, the names Codex and opencode use): the `server` argument names the
 * server; without one (or a blank one, which pi reads as none) the listings cover every server.
 */
export const PI_MCP_RESOURCE_TOOLS: ReadonlySet<string> = new Set(["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]);

/**
 * pi's own tools on the lines pi-governor supports (1.x adds codemode, tool_search and the resource
 * tools): names a rule may name without any extension registering them.
 */
export const PI_BUILTIN_TOOLS: readonly string[] = Object.freeze([
  "read",
  "bash",
  "edit",
  "write",
  "grep",
  "find",
  "ls",
  "codemode",
  "tool_search",
  ...PI_MCP_RESOURCE_TOOLS,
]);

/**
 * Longest server name read from a call's arguments (the model's text, matched against every glob):
 * a longer one is taken as "every server", never cut to a name it is not.
 */
const MAX_SERVER_CHARS = 64;

/**
 * A name as pi's MCP naming writes it: every character other than letters, digits and `_` (and `*`,
 * so a glob stays a glob) becomes `_`. pi treats `-` and `_` in server names as the same server.
 */
export function mcpNormalized(name: string): string {
  return name.replace(/[^A-Za-z0-9_*]/g, "_");
}

/**
 * The names `id` goes by, normalized: pi's `mcp__<server>__<tool>` and pi-governor's
 * `<server>_<tool>`. A tool-name glob matches the identity when its normalized form matches one.
 */
export function mcpSpellings(id: McpToolIdentity): { pi: string; governed: string } {
  const server = mcpNormalized(id.server);
  const tool = mcpNormalized(id.tool);
  return { pi: `mcp__${server}__${tool}`, governed: `${server}_${tool}` };
}

/**
 * The identity of pi's MCP tool `toolName` from the namespace pi reports for it (`pi.getAllTools()`:
 * `{ name: "mcp__<server>", aliases: ["<server>"] }`). Only a tool whose own name continues its
 * namespace (`mcp__<server>__...`) gets one, so another extension cannot claim a server's tool.
 */
export function piMcpIdentity(toolName: string, namespace: unknown): McpToolIdentity | undefined {
  const ns = piNamespaceOf(namespace);
  if (!ns || !toolName.startsWith(`${ns.name}__`)) return undefined;
  const tool = toolName.slice(ns.name.length + 2);
  return tool ? { server: ns.server, tool } : undefined;
}

/** pi's namespace of an MCP server's tools (`{ name: "mcp__<server>", aliases: ["<server>"] }`): its name and the server. */
function piNamespaceOf(namespace: unknown): { name: string; server: string } | undefined {
  if (!namespace || typeof namespace !== "object") return undefined;
  const { name, aliases } = namespace as { name?: unknown; aliases?: unknown };
  if (typeof name !== "string" || !name.startsWith("mcp__")) return undefined;
  const server = Array.isArray(aliases) && typeof aliases[0] === "string" && aliases[0] ? aliases[0] : name.slice("mcp__".length);
  return { name, server };
}

/**
 * The identity of pi's MCP tool `toolName` when pi cut its name before the tool's name began: a
 * server name of about 50 characters leaves `mcp__<start of the server>_<hash>`, which names neither
 * the server nor the tool. The server is the one of the namespace pi reports for the tool, if that
 * server's spelling starts with what pi left; the tool is known only by pi's hash (`tool` empty,
 * `truncated`).
 */
export function piServerCutIdentity(toolName: string, namespace: unknown): McpToolIdentity | undefined {
  const ns = piNamespaceOf(namespace);
  return ns ? serverCutIdentity(toolName, ns.server) : undefined;
}

/** The start pi left of a 64-character MCP tool name it cut and hashed, and the hash (undefined for other names). */
export function piCutMcpName(toolName: string): { start: string; hash: string } | undefined {
  if (toolName.length !== PI_MAX_TOOL_NAME || !toolName.startsWith("mcp__")) return undefined;
  const suffix = HASH_SUFFIX.exec(toolName);
  return suffix ? { start: toolName.slice(0, -suffix[0].length), hash: suffix[1]! } : undefined;
}

/**
 * `server`'s identity for pi's tool `toolName` if pi's cut name may be one of that server's tools
 * with the cut at or before the end of `mcp__<server>__` (see {@link piServerCutIdentity}).
 */
export function serverCutIdentity(toolName: string, server: string): McpToolIdentity | undefined {
  const cut = piCutMcpName(toolName);
  if (!cut || !`mcp__${mcpNormalized(server)}__`.startsWith(cut.start)) return undefined;
  return { server, tool: "", hash: cut.hash, truncated: true };
}

/** pi's longest tool name (providers take 64 characters); pi cuts a longer MCP tool name and adds a hash. */
export const PI_MAX_TOOL_NAME = 64;
/** The hash pi appends: `_` and 8 hex digits. */
const HASH_SUFFIX = /_([0-9a-f]{8})$/;

/** pi's 8-hex-digit hash of a server's tool (pi-mcp's createMcpToolName: SHA-256 of `<server>\0<tool>`). */
export function piToolHash(server: string, tool: string): string {
  return createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
}

/**
 * The name pi 1.x gives a server's tool: `mcp__<server>__<tool>` with every character other than
 * letters, digits and `_` as `_`; when that is longer than 64 characters or `shared` (another tool
 * of the server, or of another server, has the same name after that mapping), its first 55
 * characters, `_` and {@link piToolHash}.
 */
export function piMcpToolName(id: McpToolIdentity, shared = false): string {
  const name = mcpNormalized(`mcp__${id.server}__${id.tool}`);
  if (name.length <= PI_MAX_TOOL_NAME && !shared) return name;
  return `${name.slice(0, PI_MAX_TOOL_NAME - 9)}_${piToolHash(id.server, id.tool)}`;
}

/**
 * The identity pi's MCP tool `toolName` has if its name is one pi cut and hashed, given the
 * identity it has as written (`plain`, from {@link piMcpIdentity}); undefined when the name carries
 * no hash suffix. A name of 64 characters may have been cut (`truncated`: only the start of the tool's
 * name is known); a shorter one was hashed because another tool shares it, and the rest of it is the
 * whole tool name as pi writes it. A name that merely ends like a hash is judged both ways.
 */
export function piHashedIdentity(toolName: string, plain: McpToolIdentity): McpToolIdentity | undefined {
  const suffix = HASH_SUFFIX.exec(plain.tool);
  if (!suffix) return undefined;
  const tool = plain.tool.slice(0, -suffix[0].length);
  if (!tool) return undefined;
  return { server: plain.server, tool, hash: suffix[1]!, ...(toolName.length === PI_MAX_TOOL_NAME ? { truncated: true } : {}) };
}

/**
 * What a call of pi's resource tool `toolName` reaches, read as pi reads its arguments: a string
 * `server`, trimmed; blank or absent lists every server (`known`: the servers pi reports); any other
 * value, or one over 64 characters, is treated as every server too (pi refuses it, but nothing
 * narrower is safe to assume).
 */
export function resourceCallReach(toolName: string, input: Readonly<Record<string, unknown>>, known: readonly string[]): McpReach | undefined {
  if (!PI_MCP_RESOURCE_TOOLS.has(toolName)) return undefined;
  const raw = input.server;
  const server = typeof raw === "string" ? raw.trim() : undefined;
  if (server && server.length <= MAX_SERVER_CHARS) return { targets: [{ server, tool: toolName }], everyServer: false };
  return { targets: known.map((s) => ({ server: s, tool: toolName })), everyServer: true };
}

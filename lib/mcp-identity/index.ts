/**
 * MCP tool names and identities: one identity for an MCP server's tool whichever side runs the
 * server (tool-identity.ts), and pi's own MCP tools, `mcp__<server>__<tool>` (pi-mcp.ts).
 */
export * from "./pi-mcp.ts";
export * from "./tool-identity.ts";

/**
 * Managed MCP servers: one governed stdio MCP connection per server, with lazy start, heartbeat,
 * reconnect with backoff, degraded mode, a recovery queue and clean shutdown. Every MCP-backed
 * preset builds on {@link ManagedMcpServer}.
 */
export { ManagedMcpServer, type ManagedMcpServerDeps } from "./managed-server.ts";
export type { McpCallOptions } from "./call-attempt.ts";
export { MCP_SERVER_DEFAULTS, resolveServerConfig, type ManagedMcpServerConfig, type ResolvedServerConfig, type StateProbe } from "./config.ts";
export type { ConnectRequest, Connector, ConnectionCallOptions, ExitInfo, McpTool, McpToolResult, ServerConnection, ToolCaller } from "./connection-types.ts";
export { SERVER_CONNECTION_LOST, ServerConnectionLostError, type ReconnectStatus } from "./errors.ts";
export {
  formatDuration,
  formatServerStatus,
  type ManagedServerEvent,
  type ManagedServerListener,
  type ManagedServerStatus,
  type McpServerState,
  type ReconnectRecord,
} from "./server-status.ts";
export { ChildSignalPool } from "./child-signal-pool.ts";
export { openStdioConnection } from "./stdio-connection.ts";
export { liveChildCount } from "./child-registry.ts";
export { announceServerProcess, serverProcessFor, type ServerProcess } from "./server-processes.ts";

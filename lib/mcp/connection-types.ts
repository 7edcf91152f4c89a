/**
 * The seam between the manager (state machine, recovery) and one live child process. The real
 * implementation is {@link openStdioConnection}; unit tests inject fakes to drive the state machine
 * with a fake clock.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

/** An MCP tool as the server lists it (name, description, inputSchema, annotations). */
export type McpTool = Tool;
/** A tools/call answer. */
export type McpToolResult = CallToolResult;

/** How a child process ended. */
export interface ExitInfo {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it (`SIGKILL`), or null. */
  signal: string | null;
  /** True when the manager asked it to stop (close, restart, hang kill). */
  requested: boolean;
}

/** Per-call options the connection passes to the SDK. */
export interface ConnectionCallOptions {
  /** Aborting sends `notifications/cancelled` for this request. Owned by the manager, one per call; absent when the caller gave neither a signal nor a limit. */
  signal?: AbortSignal;
  /** SDK request timeout, in ms (a backstop; the manager enforces the caller's own limit). */
  timeoutMs: number;
}

/** Calls a tool on the live connection; what a {@link StateProbe} gets. */
export interface ToolCaller {
  callTool(name: string, args: Record<string, unknown>, options: ConnectionCallOptions): Promise<McpToolResult>;
}

/** One started, initialized server process. */
export interface ServerConnection extends ToolCaller {
  /** Child PID, when a process was spawned. */
  readonly pid: number | undefined;
  /** From the initialize answer. */
  readonly serverVersion: { name: string; version: string } | undefined;
  listTools(signal: AbortSignal): Promise<McpTool[]>;
  /** Resolves when the server answers a ping; rejects on timeout (`timeoutMs`) or a closed connection. */
  ping(timeoutMs: number): Promise<void>;
  /** Settles once, when the child has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  /** Last (at most 500) characters of the child's stderr. */
  stderrTail(): string | undefined;
  /** Ends the child now with SIGKILL (a hung child cannot handle SIGTERM). */
  kill(): void;
  /** SIGTERM (and stdin closed), then SIGKILL after `graceMs`; resolves when the child is gone. Idempotent. */
  close(graceMs: number): Promise<void>;
}

/** What a connector needs to start one server. */
export interface ConnectRequest {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  installHint?: string;
  restartCommand: string;
  /** Spawn + initialize deadline, in ms. */
  connectTimeoutMs: number;
  /** Longest message the server may send, in bytes; a longer answer fails its call, the connection stays. */
  maxAnswerBytes: number;
  /** How the user changes `maxAnswerBytes`, quoted in the too-large error. Default "maxAnswerBytes". */
  answerLimitKey?: string;
  /** Aborting cancels the start: the child is killed and the start rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Receives non-protocol output and other transport errors after start (for logs). */
  onTransportError?: (error: Error) => void;
  /** Hides secrets in the stderr tail and command line errors quote ({@link ManagedMcpServerConfig.redact}). */
  redact?: (text: string) => string;
}

/**
 * Starts a server: spawn, MCP initialize. Rejects with a classified GovernorError (SpawnError for a
 * missing command, an early exit or a wrong protocol; TimeoutError for a slow start), after making
 * sure the child is gone.
 */
export type Connector = (request: ConnectRequest) => Promise<ServerConnection>;

/**
 * What the kota plugin needs from a managed MCP server: call a tool, know the state, restart, close.
 * lib/mcp's ManagedMcpServer provides it (managed-connection.ts); tests may inject another.
 */
import type { ContentBlock } from "../../core/index.ts";

/** Server states, as the status line shows them. */
export type KotaServerState = "stopped" | "starting" | "running" | "reconnecting" | "degraded" | "closed";

/** The raw answer of a tools/call. */
export interface RawToolResult {
  content: ContentBlock[];
  isError?: boolean;
}

/** A managed connection to KotaDB. Errors thrown are classified GovernorErrors. */
export interface KotaConnection {
  callTool(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<RawToolResult>;
  /** The current state. */
  state(): KotaServerState;
  /** Last error text, when the server failed. */
  lastError(): string | undefined;
  /** Connection details: state, pid, uptime, reconnect history, last error (multi-line). */
  statusText(): string;
  /** What a reconnect lost (e.g. the index), once; undefined otherwise. */
  takeNotice(): string | undefined;
  /** Stops the server and starts it again now; rejects when it does not start. */
  restart(): Promise<void>;
  /** Idempotent; kills the child (SIGTERM, then SIGKILL after 2 s). */
  close(): Promise<void>;
  /** The server child's pid while one runs (fault injection stops or kills it). Optional for test doubles. */
  pid?(): number | undefined;
  /** Subscribes to state changes; returns an unsubscribe function. */
  onStateChange(listener: (state: KotaServerState) => void): () => void;
}

/** How to start KotaDB. */
export interface KotaLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  connectTimeoutMs: number;
  /** What to install when the command is missing, for error messages. */
  installHint: string;
}

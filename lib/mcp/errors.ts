/**
 * Connection errors of a managed MCP server, as the agent sees them. All derive from core's
 * ConnectionLostError (category `connection_lost`), so guards and retry policies treat them alike,
 * and carry structured fields for the agent: `error: "server_connection_lost"`, the reconnect status,
 * attempts spent and what the user can do.
 */
import { ConnectionLostError, type GovernorErrorOptions } from "../../core/index.ts";

/** The stable `error` field of every managed-server connection error. */
export const SERVER_CONNECTION_LOST = "server_connection_lost";

/** Where recovery stands when the error was made. */
export type ReconnectStatus = "attempting" | "degraded" | "closed" | "not_replayed" | "restarting";

/** Fields of a {@link ServerConnectionLostError} besides the message. */
export interface ServerConnectionLostOptions extends Omit<GovernorErrorOptions, "recoverable"> {
  server: string;
  reconnectStatus: ReconnectStatus;
  /** Reconnect attempts spent so far (0 before any). */
  reconnectAttempts: number;
  /** What the user can do, e.g. "Run /kota restart". */
  userAction?: string;
  recoverable?: boolean;
}

/** A call could not run because the server's connection is lost, recovering, degraded or closed. */
export class ServerConnectionLostError extends ConnectionLostError {
  /** Always {@link SERVER_CONNECTION_LOST}. */
  readonly error = SERVER_CONNECTION_LOST;
  readonly server: string;
  readonly reconnectStatus: ReconnectStatus;
  readonly reconnectAttempts: number;
  readonly userAction?: string;

  constructor(message: string, options: ServerConnectionLostOptions) {
    const { server, reconnectStatus, reconnectAttempts, userAction, ...rest } = options;
    super(message, rest);
    this.server = server;
    this.reconnectStatus = reconnectStatus;
    this.reconnectAttempts = reconnectAttempts;
    if (userAction !== undefined) this.userAction = userAction;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      error: this.error,
      server: this.server,
      reconnect_status: this.reconnectStatus,
      reconnect_attempts: this.reconnectAttempts,
      ...(this.userAction ? { user_action: this.userAction } : {}),
    };
  }
}

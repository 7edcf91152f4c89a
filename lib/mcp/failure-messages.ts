/**
 * The errors a managed server gives callers, worded for the agent: what happened, whether the call
 * ran, and what to do next. Kept apart from the state machine so the wording can be read in one place.
 */
import { formatSeconds } from "../../core/observation.ts";
import type { GovernorError } from "../../core/index.ts";
import type { ExitInfo } from "./connection-types.ts";
import { ServerConnectionLostError } from "./errors.ts";

/** What the messages need to know about the server. */
export interface MessageContext {
  server: string;
  restartCommand: string;
  attempts: number;
  maxAttempts: number;
}

/** "exited with code 3" / "was killed by SIGKILL". */
export function describeExit(info: ExitInfo): string {
  return info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
}

/** The connection broke (crash, hang, restart); the reason says how. */
export function connectionLost(c: MessageContext, reason: string, stderrTail?: string): ServerConnectionLostError {
  return new ServerConnectionLostError(`MCP server "${c.server}" ${reason}`, {
    server: c.server,
    reconnectStatus: "attempting",
    reconnectAttempts: c.attempts,
    userAction: `If it keeps failing, run ${c.restartCommand}`,
    agentMessage: "The server is being restarted automatically; call again in a moment.",
    ...(stderrTail ? { stderrTail } : {}),
  });
}

/** An in-flight call that is not safe to repeat was cut off by a lost connection. */
export function notReplayed(c: MessageContext, tool: string, cause: GovernorError): ServerConnectionLostError {
  return new ServerConnectionLostError(
    `${tool} was running when the connection to MCP server "${c.server}" was lost (${cause.message}); it was not replayed because it is not marked read-only or idempotent, so running it again could repeat its effect`,
    {
      server: c.server,
      reconnectStatus: "not_replayed",
      reconnectAttempts: c.attempts,
      // Not recoverable: a retry policy must not repeat it blindly.
      recoverable: false,
      userAction: `If the server stays down, run ${c.restartCommand}`,
      agentMessage: `Check whether ${tool} took effect before calling it again.`,
      cause,
      ...(cause.stderrTail ? { stderrTail: cause.stderrTail } : {}),
    },
  );
}

/** A call made while reconnecting, for a tool not safe to hold and repeat. */
export function notQueued(c: MessageContext, tool: string): ServerConnectionLostError {
  return new ServerConnectionLostError(
    `MCP server "${c.server}" is reconnecting (attempt ${c.attempts}/${c.maxAttempts}); ${tool} was not queued for replay because it is not marked read-only or idempotent, and it did not run`,
    {
      server: c.server,
      reconnectStatus: "attempting",
      reconnectAttempts: c.attempts,
      retryAfterMs: 2_000,
      userAction: `If it stays down, run ${c.restartCommand}`,
      agentMessage: `Call ${tool} again in a few seconds, once the server is back.`,
    },
  );
}

/** The in-flight call was lost twice in a row; it is not run a third time. */
export function lostAgain(c: MessageContext, tool: string, cause: GovernorError): ServerConnectionLostError {
  return new ServerConnectionLostError(
    `${tool} was cut off twice by MCP server "${c.server}" losing its connection (${cause.message}); it may be what crashes the server, so it was not run again`,
    {
      server: c.server,
      reconnectStatus: "not_replayed",
      reconnectAttempts: c.attempts,
      recoverable: false,
      userAction: `Run ${c.restartCommand} if the server stays down`,
      agentMessage: `Do not repeat ${tool} with the same arguments; try a narrower request or another approach.`,
      cause,
      ...(cause.stderrTail ? { stderrTail: cause.stderrTail } : {}),
    },
  );
}

/** Calls fail fast while degraded. */
export function degraded(c: MessageContext, lastError: GovernorError | undefined, retryInMs: number): ServerConnectionLostError {
  const why = c.attempts > 0 ? `reconnecting failed after ${c.attempts} attempt(s)` : "it failed to start";
  const last = lastError ? `; last error: ${lastError.message}` : "";
  const fix = lastError && lastError.category === "spawn" ? `${lastError.agentMessage} ` : "";
  return new ServerConnectionLostError(`MCP server "${c.server}" is unavailable (degraded): ${why}${last}`, {
    server: c.server,
    reconnectStatus: "degraded",
    reconnectAttempts: c.attempts,
    // Seed 001: a spent reconnect is `recoverable: false`, so no retry policy hammers (or sleeps on) a
    // degraded server; the agent message says when the next call will try again by itself.
    recoverable: false,
    retryAfterMs: retryInMs,
    userAction: `Run ${c.restartCommand}`,
    agentMessage: `${fix}Tell the user to run ${c.restartCommand}. The next call after ${formatSeconds(Math.ceil(retryInMs / 1000) * 1000)} tries to start it again; continue without its tools meanwhile.`,
    ...(lastError ? { cause: lastError } : {}),
    ...(lastError?.stderrTail ? { stderrTail: lastError.stderrTail } : {}),
  });
}

/** The server was closed (session end) before or while the call ran. */
export function closed(c: MessageContext, tool?: string): ServerConnectionLostError {
  return new ServerConnectionLostError(`MCP server "${c.server}" was shut down (the session is ending)${tool ? ` while ${tool} was running` : ""}`, {
    server: c.server,
    reconnectStatus: "closed",
    reconnectAttempts: c.attempts,
    recoverable: false,
    userAction: "Start a new session",
    agentMessage: "The session is ending; do not call this server's tools again.",
  });
}

/** The recovery queue is full. */
export function queueFull(c: MessageContext, limit: number): ServerConnectionLostError {
  return new ServerConnectionLostError(`MCP server "${c.server}" is reconnecting and ${limit} calls are already waiting; this call did not run`, {
    server: c.server,
    reconnectStatus: "attempting",
    reconnectAttempts: c.attempts,
    retryAfterMs: 2_000,
    agentMessage: "Wait for the server to come back before calling again.",
  });
}

/** A queued call waited longer than its deadline. */
export function queueExpired(c: MessageContext, waitedMs: number): ServerConnectionLostError {
  return new ServerConnectionLostError(`MCP server "${c.server}" was still reconnecting after ${formatSeconds(waitedMs)}; the call did not run`, {
    server: c.server,
    reconnectStatus: "attempting",
    reconnectAttempts: c.attempts,
    // It already waited queueDeadlineMs: a retry policy should not make it wait again.
    recoverable: false,
    userAction: `Run ${c.restartCommand}`,
    agentMessage: "Continue without this tool for now; check the server's connection status before calling it again.",
  });
}

/** What a managed server reports about itself: its state, events for listeners, and a status snapshot. */
import type { GovernorError } from "../../core/index.ts";
import { visible } from "../visible/index.ts";

/**
 * Lifecycle of a managed server.
 * - `stopped`: never started (lazy: the first call starts it).
 * - `starting`: spawning and initializing (first use, after the cool-down, or on restart).
 * - `running`: connected and answering.
 * - `reconnecting`: the child crashed or hung; restarting with backoff. Safe calls wait in a queue.
 * - `degraded`: start failed or reconnect attempts are spent; calls fail fast until the cool-down
 *   ends or the user restarts it.
 * - `closed`: shut down for good (session end); every call fails.
 */
export type McpServerState = "stopped" | "starting" | "running" | "reconnecting" | "degraded" | "closed";

/** One recovery, as the status tool lists it. */
export interface ReconnectRecord {
  /** Epoch ms when the connection was lost. */
  at: number;
  /** Why it was lost (exit status, hang, restart). */
  reason: string;
  /** Attempts it took (or spent). */
  attempts: number;
  ok: boolean;
  /** From loss to running again (or to degraded), in ms. */
  durationMs: number;
}

/** What listeners hear. */
export type ManagedServerEvent =
  | { type: "state"; server: string; from: McpServerState; to: McpServerState; reason: string }
  | { type: "recovered"; server: string; attempts: number; durationMs: number; lost: string[]; notice: string }
  | { type: "degraded"; server: string; attempts: number; error: GovernorError }
  | { type: "transport_error"; server: string; message: string };

/** A listener; errors it throws are swallowed (listeners must not break the manager). */
export type ManagedServerListener = (event: ManagedServerEvent) => void;

/** A point-in-time view for status tools and commands. */
export interface ManagedServerStatus {
  name: string;
  state: McpServerState;
  /** ms in the current state. */
  stateForMs: number;
  /** ms since the current connection became running, when running. */
  uptimeMs?: number;
  pid?: number;
  serverVersion?: { name: string; version: string };
  toolCount: number;
  /** Calls in flight now. */
  inFlight: number;
  /** Calls waiting for a reconnect. */
  queued: number;
  /** Reconnect attempts in the current (or last) recovery. */
  reconnectAttempts: number;
  maxReconnectAttempts: number;
  /** Newest last, at most 20. */
  reconnects: ReconnectRecord[];
  lastError?: { message: string; code: string; at: number; stderrTail?: string };
  /** When degraded: ms until the next call tries again. */
  retryInMs?: number;
}

/** Formats ms for people: 950 -> "950ms", 61000 -> "1m1s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ""}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ""}`;
}

/** One status block for `/<root> servers` and the status tool. */
export function formatServerStatus(s: ManagedServerStatus): string {
  const head = `${visible(s.name)}: ${s.state}${s.pid ? ` (pid ${s.pid})` : ""}${s.uptimeMs !== undefined ? `, up ${formatDuration(s.uptimeMs)}` : ""}`;
  const lines = [head];
  if (s.serverVersion)
    lines.push(`  server: ${visible(s.serverVersion.name.slice(0, 200))} ${visible(s.serverVersion.version.slice(0, 200))}, ${s.toolCount} tools`);
  if (s.state === "reconnecting") lines.push(`  reconnecting: attempt ${s.reconnectAttempts}/${s.maxReconnectAttempts}, ${s.queued} call(s) waiting`);
  if (s.retryInMs !== undefined) lines.push(`  degraded: next call retries in ${formatDuration(s.retryInMs)} (or restart now)`);
  if (s.inFlight) lines.push(`  in flight: ${s.inFlight}`);
  if (s.reconnects.length) {
    const r = s.reconnects
      .slice(-3)
      .map(
        (x) =>
          `${new Date(x.at).toISOString().slice(11, 19)} ${x.reason} -> ${x.ok ? "back" : "failed"} after ${x.attempts} attempt(s), ${formatDuration(x.durationMs)}`,
      );
    lines.push(`  reconnects (${s.reconnects.length}): ${r.join("; ")}`);
  }
  if (s.lastError)
    lines.push(`  last error: ${visible(s.lastError.message)}${s.lastError.stderrTail ? `\n  stderr: ${visible(s.lastError.stderrTail.slice(-200))}` : ""}`);
  return lines.join("\n");
}

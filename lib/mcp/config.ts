/**
 * How to start and govern one stdio MCP server. Every option documents its unit and default; the
 * defaults live in {@link MCP_SERVER_DEFAULTS} and are merged in one place ({@link resolveServerConfig}).
 */
import type { ToolCaller } from "./connection-types.ts";

/** Caller-provided extra state read after every (re)connect, e.g. KotaDB's `{ indexed: true }`. */
export type StateProbe = (server: ToolCaller, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** Options of one managed MCP server. Only `name` and `command` are required. */
export interface ManagedMcpServerConfig {
  /** Short name used in tool names, messages and status (`kota`, `everything`). Letters, digits, `-`, `_`. */
  name: string;
  /** Program to run (`bun`, `node`, an absolute path). Looked up on PATH. */
  command: string;
  /** Arguments. Default []. */
  args?: string[];
  /** Working directory of the server. Default: the current directory. */
  cwd?: string;
  /**
   * Environment passed to the server, merged over the SDK's safe default (HOME, LOGNAME, PATH, SHELL,
   * TERM, USER). Nothing else is inherited: pass what the server needs explicitly. Default {}.
   */
  env?: Record<string, string>;
  /** How long spawn + MCP initialize + tools/list may take before the child is killed, in ms. Default 10000. */
  connectTimeoutMs?: number;
  /** What to install when the command is missing, e.g. "Bun (https://bun.sh)". Default: none. */
  installHint?: string;
  /** The user's restart command, quoted in degraded messages, e.g. "/kota restart". Default "/governor restart". */
  restartCommand?: string;
  /** Heartbeat (MCP ping) period while calls are in flight, in ms; 0 disables. Default 500. */
  heartbeatIntervalMs?: number;
  /** A ping unanswered this long means the server hangs, in ms. Default 2000 (with the 500 ms period a hang is noticed within ~2.5 s). */
  heartbeatTimeoutMs?: number;
  /** Reconnect attempts after a crash or hang before the server is degraded. Default 5. */
  maxReconnectAttempts?: number;
  /** Delay before each reconnect attempt, in ms; the last value repeats. Default [100, 200, 400, 800, 1600]. */
  backoffMs?: number[];
  /** After degrading, calls fail fast for this long; the next call after it tries to start again, in ms. Default 30000. */
  degradedCooldownMs?: number;
  /** Calls that may wait for a reconnect at once; more fail at once. Default 32. */
  queueLimit?: number;
  /** How long a call may wait for a reconnect before it fails, in ms. Default 15000. */
  queueDeadlineMs?: number;
  /** Tools safe to repeat besides those the server marks `readOnlyHint` or `idempotentHint`. Default []. */
  replayTools?: string[];
  /** Per-call limit when the caller gives none, in ms (the timeout plugin normally sets one). Default 600000. */
  callTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when closing, in ms. Default 2000. */
  closeGraceMs?: number;
  /**
   * Largest answer (one JSON-RPC message) taken from the server, in bytes. A larger one fails its call
   * with an error naming this limit; the server keeps running. Default 64 MiB, at most
   * {@link MAX_ANSWER_BYTES_LIMIT}.
   */
  maxAnswerBytes?: number;
  /** How users set `maxAnswerBytes` (config path), quoted in the too-large error. Default "maxAnswerBytes". */
  answerLimitKey?: string;
  /** Reads extra state after each (re)connect, bounded by connectTimeoutMs; diffed after reconnects. */
  probe?: StateProbe;
  /**
   * Hides secrets in what the server's process contributes to error texts: its stderr tail and its
   * command line (lib/redact's `Redactor.redact`, with this server's env values added). Default: none,
   * the text is used as it is.
   */
  redact?: (text: string) => string;
}

/** A config with every default filled in. */
export type ResolvedServerConfig = Required<Omit<ManagedMcpServerConfig, "installHint" | "probe" | "cwd" | "redact">> &
  Pick<ManagedMcpServerConfig, "installHint" | "probe" | "cwd" | "redact">;

/** Upper bound of `maxAnswerBytes`: 256 MiB (a V8 string holds at most ~512 MiB, and parsing doubles the memory). */
export const MAX_ANSWER_BYTES_LIMIT = 256 * 1024 * 1024;

/** The defaults, in one place. */
export const MCP_SERVER_DEFAULTS = Object.freeze({
  args: [] as string[],
  env: {} as Record<string, string>,
  connectTimeoutMs: 10_000,
  restartCommand: "/governor restart",
  heartbeatIntervalMs: 500,
  heartbeatTimeoutMs: 2_000,
  maxReconnectAttempts: 5,
  backoffMs: [100, 200, 400, 800, 1600],
  degradedCooldownMs: 30_000,
  queueLimit: 32,
  queueDeadlineMs: 15_000,
  replayTools: [] as string[],
  callTimeoutMs: 600_000,
  closeGraceMs: 2_000,
  maxAnswerBytes: 64 * 1024 * 1024,
  answerLimitKey: "maxAnswerBytes",
});

/** Fills defaults and checks the few things that would otherwise fail obscurely later. */
export function resolveServerConfig(config: ManagedMcpServerConfig): ResolvedServerConfig {
  if (!/^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/.test(config.name)) {
    throw new Error(`MCP server name "${config.name}" must start with a letter and use only letters, digits, _ and - (max 32)`);
  }
  if (!config.command) throw new Error(`MCP server "${config.name}": command is empty`);
  const d = MCP_SERVER_DEFAULTS;
  const maxAnswerBytes = config.maxAnswerBytes ?? d.maxAnswerBytes;
  if (!Number.isInteger(maxAnswerBytes) || maxAnswerBytes < 1024 || maxAnswerBytes > MAX_ANSWER_BYTES_LIMIT) {
    throw new Error(
      `MCP server "${config.name}": maxAnswerBytes must be a whole number of bytes from 1024 to ${MAX_ANSWER_BYTES_LIMIT} (256 MiB), got ${maxAnswerBytes}`,
    );
  }
  const resolved: ResolvedServerConfig = {
    name: config.name,
    command: config.command,
    args: [...(config.args ?? d.args)],
    env: { ...(config.env ?? d.env) },
    connectTimeoutMs: config.connectTimeoutMs ?? d.connectTimeoutMs,
    restartCommand: config.restartCommand ?? d.restartCommand,
    heartbeatIntervalMs: config.heartbeatIntervalMs ?? d.heartbeatIntervalMs,
    heartbeatTimeoutMs: config.heartbeatTimeoutMs ?? d.heartbeatTimeoutMs,
    maxReconnectAttempts: config.maxReconnectAttempts ?? d.maxReconnectAttempts,
    backoffMs: [...(config.backoffMs?.length ? config.backoffMs : d.backoffMs)],
    degradedCooldownMs: config.degradedCooldownMs ?? d.degradedCooldownMs,
    queueLimit: config.queueLimit ?? d.queueLimit,
    queueDeadlineMs: config.queueDeadlineMs ?? d.queueDeadlineMs,
    replayTools: [...(config.replayTools ?? d.replayTools)],
    callTimeoutMs: config.callTimeoutMs ?? d.callTimeoutMs,
    closeGraceMs: config.closeGraceMs ?? d.closeGraceMs,
    maxAnswerBytes,
    answerLimitKey: config.answerLimitKey ?? d.answerLimitKey,
    ...(config.installHint ? { installHint: config.installHint } : {}),
    ...(config.probe ? { probe: config.probe } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    ...(config.redact ? { redact: config.redact } : {}),
  };
  return resolved;
}

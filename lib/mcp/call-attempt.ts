/**
 * One attempt of one tool call on one live connection: the hot path. It owns the signal contract
 * (the SDK only sees a per-call child signal, unlinked when the call ends, never aborted after a
 * success), the caller's time limit, and the hook by which a lost connection cuts the call off.
 */
import { classifyError, type Clock, type GovernorError, isGovernorError, TimeoutError } from "../../core/index.ts";
import { formatSeconds } from "../../core/observation.ts";
import { isErrorCategory } from "../../core/errors.ts";
import type { ExitInfo, McpToolResult, ServerConnection } from "./connection-types.ts";
import type { ChildSignalPool } from "./child-signal-pool.ts";

/** Options of one call, as callers give them. */
export interface McpCallOptions {
  /**
   * The caller's signal (may be long-lived: it is never handed to the SDK, see child-signal-pool.ts).
   * Aborting mid-call sends `notifications/cancelled` to the server and rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Limit for this call, in ms; on expiry the server gets `notifications/cancelled` and the call rejects with a TimeoutError. Default: config `callTimeoutMs` (enforced by the SDK). */
  timeoutMs?: number;
}

/** The connection went away while the call ran; `error` says how. */
export class Lost {
  constructor(readonly error: GovernorError) {}
}

/** A call in flight, as the manager tracks it to cut it off when the connection is lost. */
export interface InFlight {
  readonly tool: string;
  lose(error: GovernorError): void;
}

/** What an attempt needs from the manager. */
export interface AttemptContext {
  server: string;
  clock: Clock;
  /** SDK request timeout when the caller gives no limit, in ms. */
  callTimeoutMs: number;
  inFlight: Set<InFlight>;
  /** Where per-call child signals come from (see child-signal-pool.ts). */
  signals: ChildSignalPool;
  heartbeat: { retain(): void; release(): void } | undefined;
  /** True while `conn` is the manager's current connection. */
  isCurrent(conn: ServerConnection): boolean;
  /** Tells the manager the child exited (when the SDK noticed the closed pipe first). */
  onExit(conn: ServerConnection, info: ExitInfo): void;
}

/** Runs `tool` once on `conn`. Resolves with the result or a {@link Lost}; rejects with a GovernorError or the caller's abort reason. */
export async function attemptCall(
  ctx: AttemptContext,
  conn: ServerConnection,
  tool: string,
  args: Record<string, unknown>,
  options: McpCallOptions,
): Promise<McpToolResult | Lost> {
  // One promise, one child signal (only with a caller signal or limit), one timer (only with a limit).
  const limitMs = options.timeoutMs;
  const link = options.signal || limitMs !== undefined ? ctx.signals.acquire(options.signal) : undefined;
  const timer =
    limitMs === undefined
      ? undefined
      : ctx.clock.setTimeout(
          () =>
            link!.abort(
              new TimeoutError(`${tool} on MCP server "${ctx.server}" took longer than ${formatSeconds(limitMs)}`, limitMs, {
                agentMessage: "The call took too long. Reassess strategy: narrow the request instead of repeating it.",
              }),
            ),
          limitMs,
        );
  const entry: InFlight = { tool, lose: () => {} };
  const hb = ctx.heartbeat;
  ctx.inFlight.add(entry);
  hb?.retain();
  try {
    return await new Promise<McpToolResult | Lost>((resolve, reject) => {
      entry.lose = (error) => resolve(new Lost(error));
      // With a caller limit the SDK's own timeout is only a backstop: ours fires first with the right error.
      const sdkTimeoutMs = limitMs === undefined ? ctx.callTimeoutMs : limitMs + 1_000;
      conn.callTool(tool, args, { ...(link ? { signal: link.signal } : {}), timeoutMs: sdkTimeoutMs }).then(resolve, reject);
    });
  } catch (raw) {
    if (link?.signal.aborted) throw link.signal.reason;
    const stderrTail = conn.stderrTail();
    const error = classifyError(raw, { subject: `${ctx.server}_${tool}`, ...(stderrTail ? { stderrTail } : {}) });
    if (!isErrorCategory(error, "connection_lost")) throw isGovernorError(error) ? error : classifyError(error);
    // The SDK saw the pipe close before the manager saw the exit: let the manager handle the exit
    // first, so this call is replayed or failed like every other call cut off by it.
    if (ctx.isCurrent(conn)) {
      const info = await Promise.race([conn.exited, new Promise<undefined>((r) => ctx.clock.setTimeout(() => r(undefined), 100))]);
      if (info) ctx.onExit(conn, info);
    }
    return new Lost(error);
  } finally {
    link?.unlink();
    if (timer !== undefined) ctx.clock.clearTimeout(timer);
    ctx.inFlight.delete(entry);
    hb?.release();
  }
}

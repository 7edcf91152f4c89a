/**
 * One attempt under a time limit. The attempt ends with whichever comes first: the inner handler's
 * observation, the limit (a `TIMEOUT_EXCEEDED` observation), or the caller's abort (an ERROR
 * observation). Whatever the inner handler does afterwards is ignored, and it can never reject into
 * the void: both of its outcomes are handled.
 *
 * Cost model (why this file looks the way it does): `new AbortController().signal` costs ~2.3 us in
 * Node 20, far more than the rest of the attempt. So the per-attempt signal is created lazily, the
 * first time something below reads `call.signal`; a transport that never looks at the signal (an
 * in-process function) never pays for it. Once created it is aborted on timeout or caller abort,
 * and NEVER after a success: aborting after success is what makes the MCP SDK send
 * `notifications/cancelled` for a request that already finished.
 */
import {
  classifyError,
  failure,
  timedOut,
  TimeoutError,
  type Clock,
  type ToolCallContext,
  type ToolHandler,
  type TimeoutObservation,
  type ToolObservation,
  UnknownError,
} from "../../core/index.ts";
import { AttemptCall, type SignalSource } from "./attempt-call.ts";
import { type CallerAbortListener, type LinkSet, linkCaller, unlinkCaller } from "../../lib/resilience/index.ts";

/** Whether the limit that applies is the attempt's own or what is left of the call's total deadline. */
export type LimitScope = "attempt" | "total";

/** What one attempt runs under. */
export interface AttemptLimit {
  /** Milliseconds this attempt may take. */
  ms: number;
  scope: LimitScope;
  /** The limit reported to the model (the attempt limit, or the whole total deadline), in milliseconds. */
  reportedMs: number;
}

/** Runs `next` for one attempt under `limit`. Resolves; never rejects. */
export function runAttempt(next: ToolHandler, call: ToolCallContext, limit: AttemptLimit, clock: Clock): Promise<ToolObservation> {
  const caller = call.signal;
  if (caller.aborted) return Promise.resolve(cancelled(call.toolName, caller.reason));
  if (limit.ms <= 0) return Promise.resolve(expired(call.toolName, limit, 0));
  return new Promise<ToolObservation>((resolve) => new Attempt(next, call, limit, clock, resolve));
}

/** The state of one running attempt. A class, so V8 keeps one shape for every attempt. */
class Attempt implements CallerAbortListener, SignalSource {
  private done = false;
  private controller: AbortController | undefined = undefined;
  /** Why the attempt's signal must be aborted once it exists (set on timeout or caller abort). */
  private abortReason: unknown = undefined;
  private readonly timer: unknown;
  private readonly links: LinkSet;

  constructor(
    next: ToolHandler,
    private readonly call: ToolCallContext,
    private readonly limit: AttemptLimit,
    private readonly clock: Clock,
    private readonly resolve: (obs: ToolObservation) => void,
  ) {
    this.links = linkCaller(call.signal, this);
    this.timer = clock.setTimeout(() => this.onTimeout(), limit.ms);
    // A NEW context per attempt (the pipeline's next-at-most-once rule), whose signal is made on demand.
    const inner = new AttemptCall(call, this);
    let pending: Promise<ToolObservation>;
    try {
      pending = next(inner);
      // A wrapper below that breaks the contract and returns a plain value must not leave the timer armed.
      if (typeof (pending as { then?: unknown } | undefined)?.then !== "function") pending = Promise.resolve(pending);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (obs) => this.settle(obs),
      (error) => this.settle(failure(call.toolName, classifyError(error, { subject: call.toolName }))),
    );
  }

  /** The per-attempt signal, created on first use; already aborted if the attempt already ended by abort. */
  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** The inner handler finished first: clean up, never abort. */
  private settle(obs: ToolObservation): void {
    if (this.done) return;
    this.done = true;
    this.clock.clearTimeout(this.timer);
    unlinkCaller(this.links, this);
    this.resolve(obs);
  }

  private onTimeout(): void {
    if (this.done) return;
    this.done = true;
    unlinkCaller(this.links, this);
    // The timer fired after exactly limit.ms on this clock: no clock read needed for the attempt's time.
    const obs = expired(this.call.toolName, this.limit, this.limit.ms);
    this.abort(new TimeoutError(`${this.call.toolName}: ${obs.message}`, this.limit.reportedMs, { agentMessage: obs.message }));
    this.resolve(obs);
  }

  onCallerAbort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.clock.clearTimeout(this.timer);
    this.abort(reason);
    this.resolve(cancelled(this.call.toolName, reason));
  }

  /** Aborts the per-attempt signal if something below holds it, or arranges that it is born aborted. */
  private abort(reason: unknown): void {
    this.abortReason = reason ?? new Error("aborted");
    this.controller?.abort(this.abortReason);
  }
}

/** The `TIMEOUT_EXCEEDED` observation for an expired limit. */
function expired(toolName: string, limit: AttemptLimit, elapsedMs: number): TimeoutObservation {
  const obs = timedOut(toolName, limit.reportedMs, elapsedMs);
  obs.meta = { ...obs.meta, timeout: { ...obs.meta.timeout, scope: limit.scope } };
  return obs;
}

/** The ERROR observation for a call the caller (pi, the user's Esc) cancelled. */
export function cancelled(toolName: string, reason: unknown): ToolObservation {
  return failure(
    toolName,
    new UnknownError(`${toolName}: cancelled by the caller`, {
      recoverable: false,
      cause: reason,
      agentMessage: "The call was cancelled (the user interrupted or the turn ended). Do not repeat it unless the user asks.",
    }),
  );
}

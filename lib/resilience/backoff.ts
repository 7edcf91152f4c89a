/**
 * Waiting before trying again. Two schedules, for two situations:
 * - {@link jitteredBackoffMs}: retrying a failed call. Many clients may have failed together (a rate
 *   limit, a server restart), so the delay is random, exponential with full jitter (AWS architecture
 *   blog, "Exponential Backoff And Jitter"): uniform in [0, min(cap, base * 2^(n-1))). Full jitter
 *   spreads them, so they do not come back together. A server's retry-after hint is a lower bound.
 * - {@link scheduledBackoffMs}: reconnecting the one child process this client owns. No crowd to
 *   spread, and the user configures the exact steps (`backoffMs`, by default 100, 200, 400, 800,
 *   1600 ms), so the delay is that fixed schedule, its last step repeating.
 */

/** Inputs of one retry's backoff. */
export interface JitteredBackoffInput {
  /** The retry about to run: 1 for the first retry. */
  retry: number;
  /** Base delay, in milliseconds. */
  baseDelayMs: number;
  /** Cap of the exponential part, in milliseconds. */
  maxDelayMs: number;
  /** The server's retry-after hint, in milliseconds, if any. */
  retryAfterMs?: number | undefined;
  /** Uniform random in [0, 1). Injected for tests. */
  random: () => number;
}

/** Milliseconds to wait before a retry: exponential with full jitter, at least the retry-after hint (never negative). */
export function jitteredBackoffMs(input: JitteredBackoffInput): number {
  const exp = Math.min(input.maxDelayMs, input.baseDelayMs * 2 ** Math.min(input.retry - 1, 30));
  const jittered = Math.floor(input.random() * exp);
  return Math.max(0, input.retryAfterMs !== undefined ? Math.max(jittered, Math.ceil(input.retryAfterMs)) : jittered);
}

/** Milliseconds to wait before reconnect attempt `attempt` (1-based): step `attempt` of the schedule, the last repeating; 0 for an empty schedule. */
export function scheduledBackoffMs(attempt: number, scheduleMs: readonly number[]): number {
  if (scheduleMs.length === 0) return 0;
  const index = Math.min(Math.max(attempt, 1), scheduleMs.length) - 1;
  return Math.max(0, scheduleMs[index]!);
}

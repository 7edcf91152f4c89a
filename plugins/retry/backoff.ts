/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
 * the delay before retry n is uniform in [0, min(cap, base * 2^(n-1))). Full jitter spreads clients
 * that failed together, so they do not come back together. A server's retry-after hint is a lower
 * bound: retrying sooner is known to fail.
 */

/** Inputs of one backoff decision. */
export interface BackoffInput {
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

/** Milliseconds to wait before the retry (never negative). */
export function backoffDelay(input: BackoffInput): number {
  const exp = Math.min(input.maxDelayMs, input.baseDelayMs * 2 ** Math.min(input.retry - 1, 30));
  const jittered = Math.floor(input.random() * exp);
  return Math.max(0, input.retryAfterMs !== undefined ? Math.max(jittered, Math.ceil(input.retryAfterMs)) : jittered);
}

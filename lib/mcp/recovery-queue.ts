/**
 * Calls waiting for a reconnect: bounded (a storm of calls cannot pile up) and with a deadline per
 * call (nobody waits forever for a server that may never come back). Timers use the injected clock.
 */
import type { Clock } from "../../core/index.ts";

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/** FIFO of waiting calls. `release()` lets them all run; `fail(error)` rejects them all. */
export class RecoveryQueue {
  private readonly waiters = new Set<Waiter>();

  /**
   * @param limit most calls waiting at once
   * @param deadlineMs how long one call may wait, in ms
   * @param errors builds the error for a full queue and for an expired deadline
   */
  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly deadlineMs: number,
    private readonly errors: { full(limit: number): Error; expired(waitedMs: number): Error },
  ) {}

  /** Calls waiting now. */
  get size(): number {
    return this.waiters.size;
  }

  /** Waits until released; rejects when the queue is full, the deadline passes, `signal` aborts or `fail` runs. */
  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiters.size >= this.limit) return Promise.reject(this.errors.full(this.limit));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => settle(() => reject(signal!.reason));
      const timer = this.clock.setTimeout(() => settle(() => reject(this.errors.expired(this.deadlineMs))), this.deadlineMs);
      const waiter: Waiter = {
        resolve: () => settle(resolve),
        reject: (error) => settle(() => reject(error)),
        cleanup: () => {
          this.clock.clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      const settle = (fn: () => void) => {
        if (!this.waiters.delete(waiter)) return;
        waiter.cleanup();
        fn();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Lets every waiting call run (the server is back). */
  release(): void {
    for (const w of [...this.waiters]) w.resolve();
  }

  /** Rejects every waiting call with `error` (degraded or closed). */
  fail(error: unknown): void {
    for (const w of [...this.waiters]) w.reject(error);
  }
}

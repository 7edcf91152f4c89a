/**
 * A retry budget (Finagle's RetryBudget, gRPC's retry throttling): within a sliding window, retries
 * may not exceed `minRetries + ratio * calls`. When a server fails every call, retries add at most
 * `ratio` to its load instead of multiplying it by maxAttempts.
 *
 * The window is a ring of `BUCKETS` counters, so memory and time per call are constant whatever the
 * call rate; the window slides one bucket (windowMs / 10) at a time.
 */

const BUCKETS = 10;

/** Budget settings; see the `retry.budget` config. */
export interface RetryBudgetOptions {
  /** Retries allowed per call in the window. */
  ratio: number;
  /** Retries always allowed in the window. */
  minRetries: number;
  /** Window length, in milliseconds. */
  windowMs: number;
}

/** A sliding-window retry budget for one tool. Times are clock milliseconds. */
export class RetryBudget {
  private readonly bucketMs: number;
  private readonly stamps = new Float64Array(BUCKETS).fill(-1);
  private readonly calls = new Float64Array(BUCKETS);
  private readonly retries = new Float64Array(BUCKETS);

  constructor(private readonly options: RetryBudgetOptions) {
    this.bucketMs = options.windowMs / BUCKETS;
  }

  /** Counts a call (its first attempt). */
  recordCall(now: number): void {
    this.calls[this.slot(now)]!++;
  }

  /** Takes one retry from the budget if the window allows it; false means do not retry. */
  tryAcquire(now: number): boolean {
    const current = this.slot(now);
    const index = Math.floor(now / this.bucketMs);
    let calls = 0;
    let retries = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.stamps[i]! > index - BUCKETS) {
        calls += this.calls[i]!;
        retries += this.retries[i]!;
      }
    }
    if (retries + 1 > this.options.minRetries + this.options.ratio * calls) return false;
    this.retries[current]!++;
    return true;
  }

  /** The ring slot for `now`, cleared if it last held an older bucket. */
  private slot(now: number): number {
    const index = Math.floor(now / this.bucketMs);
    const slot = index % BUCKETS;
    if (this.stamps[slot] !== index) {
      this.stamps[slot] = index;
      this.calls[slot] = 0;
      this.retries[slot] = 0;
    }
    return slot;
  }
}

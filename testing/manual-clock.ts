/**
 * A clock for tests that moves only when told: `now()` starts at `start`, timers fire in time order
 * during `advance(ms)`, with the microtask queue drained after each, so promise chains waiting on a
 * timer run before the next one fires.
 */
import type { Clock } from "../core/index.ts";

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** Drains pending microtasks and promise callbacks (one macrotask turn). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A manually advanced {@link Clock}. */
export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 1;
  /** Every delay passed to setTimeout, in order (tests read backoff sleeps from it). */
  readonly requested: number[] = [];

  constructor(start = 1_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.requested.push(ms);
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers not yet fired or cleared. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order and draining promises after each. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flush();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
      await flush();
    }
    this.current = target;
    await flush();
  }

  /** Fires timers one by one (jumping time to each) until `promise` settles or no timer is left. */
  async runUntilSettled<T>(promise: Promise<T>, maxTimers = 10_000): Promise<T> {
    let settled = false;
    const watched = promise.finally(() => {
      settled = true;
    });
    await flush();
    for (let i = 0; i < maxTimers && !settled; i++) {
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      await this.advance(next.at - this.current);
    }
    return watched;
  }
}

import { type Clock, systemClock } from "../../core/index.ts";

/** The real clock, counting timers that are set and neither fired nor cleared (unref'd timers hide from process.getActiveResourcesInfo). */
export class CountingClock implements Clock {
  private readonly pending = new Set<unknown>();
  now(): number {
    return systemClock.now();
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const handle: unknown = systemClock.setTimeout(() => {
      this.pending.delete(handle);
      fn();
    }, ms);
    this.pending.add(handle);
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle);
    systemClock.clearTimeout(handle);
  }
  /** Timers still pending. */
  get live(): number {
    return this.pending.size;
  }
}

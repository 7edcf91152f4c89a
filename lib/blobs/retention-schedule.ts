/**
 * When retention runs during a session: once at the session's first message list (by then a resumed
 * session has named the stored outputs it still points to, which may be older than the age limit),
 * then every `intervalMinutes` on the clock's unref'd timer until the session shuts down. Shared by
 * the blob cache and the recall index, whose rows must not outlive their blobs.
 */
import type { Clock } from "../../core/index.ts";

/** Runs one retention pass at the session's first message list, then on a timer; see the module comment. */
export class RetentionSchedule {
  private timer: unknown;
  private running = false;
  private firstPending = false;

  /**
   * @param clock timers (unref'd in production)
   * @param intervalMinutes minutes between sweeps after the first; 0: only the first
   * @param sweep one retention pass; it reports its own failures and never rejects
   */
  constructor(
    private readonly clock: Clock,
    private readonly intervalMinutes: number,
    private readonly sweep: () => Promise<void>,
  ) {}

  /** A session started: the first sweep waits for its first message list, the timer starts now. */
  start(): void {
    this.clearTimer();
    this.running = true;
    this.firstPending = true;
    this.schedule();
  }

  /** The session's message list is known (call on every context event; sweeps once per session). */
  messagesSeen(): void {
    if (!this.firstPending) return;
    this.firstPending = false;
    void this.sweep();
  }

  /** The session ended: no further sweep. */
  stop(): void {
    this.running = false;
    this.firstPending = false;
    this.clearTimer();
  }

  private schedule(): void {
    if (!this.running || this.intervalMinutes <= 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.sweep().finally(() => this.schedule());
    }, this.intervalMinutes * 60_000);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * MCP ping while the server is in use (at least one call in flight). An idle server costs nothing;
 * a busy one that stops answering (SIGSTOP, a deadlock) is noticed within interval + timeout.
 * Only a ping that times out counts as a hang: an error answer means the server is alive.
 */
import type { Clock } from "../../core/index.ts";

/** Runs `ping` every `intervalMs` while retained; calls `onHung` once when a ping times out. */
export class Heartbeat {
  private users = 0;
  private timer: unknown;
  private stopped = false;

  /**
   * @param ping resolves when answered; rejects with `{ timedOut: true }`-like errors on timeout
   * @param isTimeout tells a timeout apart from other ping failures
   * @param intervalMs between the end of one ping and the next, in ms (0 disables)
   */
  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly ping: () => Promise<void>,
    private readonly isTimeout: (error: unknown) => boolean,
    private readonly onHung: (error: unknown) => void,
  ) {}

  /** A call started. The first user starts the beat. */
  retain(): void {
    this.users++;
    if (this.users === 1) this.schedule();
  }

  /**
   * A call ended. The pending tick is kept (it pings only if a call is in flight when it fires):
   * back-to-back calls then cost no timer churn.
   */
  release(): void {
    this.users = Math.max(0, this.users - 1);
  }

  /** Stops for good (the connection is gone). */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private schedule(): void {
    if (this.stopped || this.intervalMs <= 0 || this.timer !== undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.beat();
    }, this.intervalMs);
  }

  private cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    // Idle since the tick was scheduled: stop; the next retain() schedules again.
    if (this.stopped || this.users === 0) return;
    try {
      await this.ping();
    } catch (error) {
      if (this.stopped) return;
      if (this.isTimeout(error)) {
        this.stop();
        this.onHung(error);
        return;
      }
    }
    if (this.users > 0) this.schedule();
  }
}

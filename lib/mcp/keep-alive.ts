/**
 * Keeps the Node process alive while someone waits on a managed server. The manager's own timers
 * (heartbeat, backoff, queue deadlines) and the child's pipes are unref'd so an idle server never
 * holds the host open; but a call that waits through a reconnect then has nothing holding the
 * process, and a host with no other handles would exit mid-call (code 13 for an unsettled top-level
 * await). One ref'd handle, held while at least one caller waits, closes that gap.
 */

/** A counted hold on the event loop. */
export class KeepAlive {
  private holders = 0;
  private handle: NodeJS.Timeout | undefined;
  private disposed = false;

  /** Holds the process until the returned function is called (idempotent release). */
  hold(): () => void {
    if (this.disposed) return () => {};
    this.holders++;
    if (this.holders === 1) {
      // One long interval, created once and then only ref'd/unref'd: no timer churn per call.
      this.handle ??= setInterval(() => {}, 2 ** 31 - 1);
      this.handle.ref();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders === 0) this.handle?.unref();
    };
  }

  /** Callers holding the process now. */
  get count(): number {
    return this.holders;
  }

  /** Drops the handle for good (the manager is closed); later holds hold nothing. */
  dispose(): void {
    this.disposed = true;
    if (this.handle) clearInterval(this.handle);
    this.handle = undefined;
  }
}

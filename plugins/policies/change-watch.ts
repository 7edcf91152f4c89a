/**
 * What may have changed while a read-only call ran, for the repeated-call memory. pi runs the calls
 * of one batch in parallel after letting each through `tool_call`, so a read can run beside a
 * `bash` that rewrites what it reads; a result is fresh only when no call that may change anything
 * ran at any moment of it. This watch follows such calls from the moment the policy lets one
 * through (`tool_call`) to its end (`tool_execution_end`), and counts every start and end.
 */

/** Calls followed at once; beyond it (ends that never came) nothing is remembered again this session. */
const MAX_RUNNING = 4_096;

/** One session's calls that may change something, while they run. */
export class ChangeWatch {
  /** Running changes by pi's tool call id, counted: a provider may reuse an id within a batch. */
  private readonly running = new Map<string, number>();
  private runningCount = 0;
  /** More calls were running than {@link MAX_RUNNING}, or the user's commands run unseen: fail safe, never remember again. */
  private overflowed = false;
  /** Bumped whenever a change starts or ends, or something outside the calls may have changed. */
  private changes = 0;
  /** The run number from which results may be remembered again (see {@link outsideChange}). */
  private quietFromRun = 0;
  private run = 0;

  /** A run starts: pi has finished every call of the run before (it waits for each batch to end). */
  startRun(): void {
    this.run++;
  }

  /**
   * A call that may change something was let through: it counts as running until {@link ended}.
   * `lingering`: its work may outlast its end (a command that starts a background job, a server
   * that keeps working): nothing is remembered for the rest of this run.
   */
  started(toolCallId: string, lingering = true): void {
    this.changes++;
    if (lingering) this.quietFromRun = Math.max(this.quietFromRun, this.run + 1);
    if (this.running.size >= MAX_RUNNING) this.overflowed = true;
    if (this.overflowed) return;
    this.runningCount++;
    this.running.set(toolCallId, (this.running.get(toolCallId) ?? 0) + 1);
  }

  /** pi finished the call `toolCallId` (any call): true when it was a running change. */
  ended(toolCallId: string): boolean {
    const n = this.running.get(toolCallId);
    if (n === undefined) return false;
    if (n > 1) this.running.set(toolCallId, n - 1);
    else this.running.delete(toolCallId);
    this.runningCount--;
    this.changes++;
    return true;
  }

  /**
   * Something changed outside the calls pi-governor sees end (a `!` command the user ran: pi reports
   * its start only). Nothing is remembered for the rest of this run and the next one.
   */
  outsideChange(): void {
    this.changes++;
    this.quietFromRun = Math.max(this.quietFromRun, this.run + 2);
  }

  /**
   * The user's shell commands run where their start is not reported (another extension handles
   * them; the SDK runs them): one may be running at any moment, so nothing is remembered again in
   * this session.
   */
  unseenChanges(): void {
    this.changes++;
    this.overflowed = true;
  }

  /** Whether a change is running now (a remembered answer may already be out of date). */
  get busy(): boolean {
    return this.runningCount > 0 || this.overflowed || this.run < this.quietFromRun;
  }

  /** A mark for a read starting now; undefined when a change is running (its result cannot be remembered). */
  mark(): number | undefined {
    return this.busy ? undefined : this.changes;
  }

  /** Whether nothing that may change anything started or ended since `mark` (taken when the read started). */
  quietSince(mark: number | undefined): boolean {
    return mark !== undefined && !this.busy && this.changes === mark;
  }
}

/**
 * Where a run begins, as the user sees it. pi fires `agent_start` for every low-level agent run: the
 * one a prompt starts, and also the ones pi starts itself inside it (an automatic retry of a provider
 * error, a retry after compaction, queued messages, a continuation an `agent_before_settle` handler
 * asks for). Per-run limits and a stop must hold across those, so `runStart` fires only for an
 * `agent_start` that a new run led to:
 *
 * - `before_agent_start`, which pi fires once per prompt (typed, RPC `prompt`, an extension's
 *   `sendUserMessage`; on pi 1.x also a custom message sent with `triggerTurn`), never for its own
 *   continuations (they call `agent.continue()`, which skips it) on any line (0.73 to 1.x);
 * - `agent_settled` (pi 0.87+), after which pi does not continue on its own: whatever starts next
 *   (on 0.87 a custom message with `triggerTurn` skips `before_agent_start`) is a new run.
 *
 * pi before 0.87 has no `agent_settled`: there a run an extension starts with a custom message alone
 * keeps the counts of the run before it (never the other way round: nothing pi does by itself resets
 * them).
 */
export class RunBoundary {
  /** The first `agent_start` of a binding begins a run: nothing was counted before it. */
  private newRunPending = true;

  /** A new run is on its way: `before_agent_start`, or `agent_settled` (pi will not continue by itself). */
  expectNewRun(): void {
    this.newRunPending = true;
  }

  /**
   * `agent_start`: true when it begins a run the user (or an extension, an RPC client) started,
   * false when pi continues the current run by itself.
   */
  agentStarted(): boolean {
    const isNew = this.newRunPending;
    this.newRunPending = false;
    return isNew;
  }
}

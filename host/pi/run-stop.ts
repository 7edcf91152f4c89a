/**
 * Ends a run a gate stage stopped (a `toolGate` decision with `terminate`, such as the policies'
 * `onExceed: "stop"`), on every pi line, whatever else the model's batches hold.
 *
 * pi 0.84.1 and later end a run after a batch only when every call of it was blocked with
 * `terminate`. Calls pi refuses itself (a tool that does not exist, arguments that fail its schema)
 * are refused before any extension's `tool_call` handler runs, so their results never say
 * `terminate`, and a batch that holds one (or that mixed finished calls with the stopped one) gets
 * another model request. Older pi has no `terminate` at all. So after a stop:
 *
 * - pi before 0.84.1: the run is aborted before its next model request;
 * - later pi: one more model request is let through (it sees why the run stopped; if its calls are
 *   all stopped, pi ends the run there), and the run is aborted before the request after that.
 *
 * A run that stopped thus sends at most two model requests after the batch that reached the stop,
 * the second of them aborted before it is sent.
 */
export class RunStop {
  /** Model requests started since the stop; undefined while the run is not stopped. */
  private requestsSinceStop: number | undefined;

  constructor(
    /** Whether this pi ends a run after a batch whose calls all say `terminate` (0.84.1 and later). */
    private readonly honoursTerminate: boolean,
  ) {}

  /** A gate stage stopped the run (a blocked call with `terminate`). */
  stopped(): void {
    this.requestsSinceStop ??= 0;
  }

  /** A new run began: nothing is stopped. */
  newRun(): void {
    this.requestsSinceStop = undefined;
  }

  /** A model request is about to be sent (pi's `context` event): true when the run must be aborted now. */
  beforeRequest(): boolean {
    if (this.requestsSinceStop === undefined) return false;
    if (!this.honoursTerminate || this.requestsSinceStop >= 1) {
      this.requestsSinceStop = undefined;
      return true;
    }
    this.requestsSinceStop++;
    return false;
  }
}

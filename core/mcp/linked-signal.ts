/**
 * A per-call AbortController linked to a caller's (possibly long-lived) signal. The SDK adds an
 * 'abort' listener to the signal it is given and never removes it, and it sends
 * `notifications/cancelled` whenever that signal aborts, even after the request succeeded. So the
 * SDK only ever sees this child signal: the link to the caller's signal is removed when the call
 * ends, and the child is aborted only while the call is still running. The manager takes its children
 * from a {@link ChildSignalPool} (same contract, reused signals); this is the plain, unpooled form.
 */
import type { ChildSignalPool } from "./child-signal-pool.ts";

/** A child signal for one call. Call `unlink()` in `finally`. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the child (a timeout or the manager ending the call). No-op after `unlink()`. */
  abort(reason: unknown): void;
  /** Removes the listener from the parent; after this the child never aborts. Idempotent. */
  unlink(): void;
}

/** Links a fresh controller to `parent` (if any). Already-aborted parents abort the child at once. */
export function linkSignal(parent: AbortSignal | undefined): LinkedSignal {
  const controller = new AbortController();
  let linked = true;
  const onAbort = () => {
    if (linked) controller.abort(parent!.reason);
  };
  if (parent) {
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener("abort", onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    abort(reason) {
      if (linked && !controller.signal.aborted) controller.abort(reason);
    },
    unlink() {
      if (!linked) return;
      linked = false;
      parent?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Runs work under a deadline: the work gets a signal that aborts at the deadline (or when the
 * caller's signal aborts), and the result is undefined instead of a late answer. Timer and listener
 * are removed on every path.
 */
import type { Clock } from "../../core/index.ts";

/** `work(signal)`'s result, or undefined when `ms` passed first or `outer` aborted. Never rejects. */
export async function withinDeadline<T>(
  clock: Clock,
  ms: number,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | undefined> {
  const controller = new AbortController();
  let timer: unknown;
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  const deadline = new Promise<undefined>((resolve) => {
    timer = clock.setTimeout(() => {
      controller.abort(new Error(`deadline of ${ms} ms passed`));
      resolve(undefined);
    }, ms);
    controller.signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  try {
    return await Promise.race([work(controller.signal).catch(() => undefined), deadline]);
  } finally {
    clock.clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

/** Reconnect backoff: a fixed schedule, the last step repeating (by default 100, 200, 400, 800, 1600 ms). */

/** Delay before reconnect attempt `attempt` (1-based), in ms. An empty schedule means no delay. */
export function backoffDelay(attempt: number, scheduleMs: readonly number[]): number {
  if (scheduleMs.length === 0) return 0;
  const index = Math.min(Math.max(attempt, 1), scheduleMs.length) - 1;
  return Math.max(0, scheduleMs[index]!);
}

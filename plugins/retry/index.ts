/**
 * `governor:retry` (config key `retry`, TOOL_STAGE.RETRY: outside the per-attempt timeout, inside the
 * breaker): repeats an attempt that failed transiently.
 *
 * - Only transient outcomes: categories in `retryOn` (network, connection_lost, rate_limit by
 *   default), TIMEOUT_EXCEEDED only with `retryTimeouts`; never auth, invalid_input, budget, spawn or
 *   circuit_open. Thrown errors and `isError` results both arrive as ERROR observations with a category.
 * - Only tools safe to repeat by default (readOnlyHint / idempotentHint, or listed in `tools`).
 * - Exponential backoff with full jitter, at least the server's retry-after; the sleep ends at once
 *   when the caller aborts, and never runs past the call's total deadline (`call.deadline`).
 * - A per-tool retry budget (retries <= minRetries + ratio * calls per window) stops retry storms.
 * - The observation's `retries` (and the error's `retried`) say how many retries ran.
 */
import { definePlugin, TOOL_STAGE, type Clock, type ToolObservation, type ToolWrapper } from "../../core/index.ts";
import { sleep } from "../../core/services.ts";
import { jitteredBackoffMs } from "../../lib/resilience/index.ts";
import { RetryBudget } from "./budget.ts";
import { retryDefaults, type RetryOptions, retrySchema, settingsFor } from "./config.ts";
import { isRetriedTool, isTransient, retryAfterOf } from "./retryable.ts";

export { retryDefaults, retrySchema, type RetryOptions, RETRYABLE_CATEGORIES } from "./config.ts";
export { RetryBudget, type RetryBudgetOptions } from "./budget.ts";
export { NEVER_RETRIED } from "./retryable.ts";

/** Plugin name, as taps, logs and errors show it. */
export const RETRY_PLUGIN = "governor:retry";

/** Why retrying stopped, recorded in `meta.retry.stoppedBy` of a failed observation. */
export type RetryStop = "not_transient" | "max_attempts" | "budget" | "deadline" | "retry_after_too_long" | "aborted";

/** What the retry wrapper needs besides its options. */
export interface RetryDeps {
  clock: Clock;
  /** Uniform random in [0, 1) for jitter. Default Math.random. */
  random?: () => number;
  /** Receives one record per retry decision that sleeps (tests, metrics). */
  onRetry?: (info: { toolName: string; retry: number; delayMs: number; category: string }) => void;
}

/** The retry wrapper. Exported for tests and custom stacks; the plugin taps it at TOOL_STAGE.RETRY. */
export function retryWrapper(options: RetryOptions, deps: RetryDeps): ToolWrapper {
  const { clock, onRetry } = deps;
  const random = deps.random ?? Math.random;
  return (next, tool) => {
    // A tool that is never retried gets no layer at all: zero cost per call.
    if (!isRetriedTool(options, tool)) return next;
    const settings = settingsFor(options, tool.name);
    if (settings.maxAttempts <= 1) return next;
    const budget = new RetryBudget(options.budget);
    return async (call) => {
      // startedAt is "now" for the first attempt: saves a clock read on the fast path.
      budget.recordCall(call.startedAt);
      let obs = await next(call);
      if (obs.status === "SUCCESS") return obs;
      let attempt = 1;
      let stoppedBy: RetryStop;
      for (;;) {
        if (!isTransient(obs, settings)) {
          stoppedBy = "not_transient";
          break;
        }
        if (attempt >= settings.maxAttempts) {
          stoppedBy = "max_attempts";
          break;
        }
        if (call.signal.aborted) {
          stoppedBy = "aborted";
          break;
        }
        const retryAfterMs = retryAfterOf(obs);
        if (retryAfterMs !== undefined && retryAfterMs > settings.maxRetryAfterMs) {
          stoppedBy = "retry_after_too_long";
          break;
        }
        const delayMs = jitteredBackoffMs({ retry: attempt, baseDelayMs: settings.baseDelayMs, maxDelayMs: settings.maxDelayMs, retryAfterMs, random });
        const now = clock.now();
        // Sleeping up to (or past) the deadline leaves nothing for the attempt: stop now instead.
        if (call.deadline !== undefined && now + delayMs >= call.deadline) {
          stoppedBy = "deadline";
          break;
        }
        if (!budget.tryAcquire(now)) {
          stoppedBy = "budget";
          break;
        }
        onRetry?.({ toolName: tool.name, retry: attempt, delayMs, category: obs.status === "ERROR" ? obs.error.category : "timeout" });
        try {
          await sleep(clock, delayMs, call.signal);
        } catch {
          stoppedBy = "aborted";
          break;
        }
        attempt++;
        obs = await next({ ...call, attempt });
        if (obs.status === "SUCCESS") break;
      }
      return recordRetries(obs, attempt - 1, obs.status === "SUCCESS" ? undefined : stoppedBy!);
    };
  };
}

/** Writes the retry count onto the final observation (and its error), plus why retrying stopped. */
function recordRetries(obs: ToolObservation, retries: number, stoppedBy: RetryStop | undefined): ToolObservation {
  obs.retries = retries;
  if (obs.status === "ERROR") obs.error.retried = retries;
  if (retries > 0 || (stoppedBy !== undefined && stoppedBy !== "not_transient"))
    obs.meta = { ...obs.meta, retry: { retries, ...(stoppedBy ? { stoppedBy } : {}) } };
  return obs;
}

/** The retry plugin factory: `retry()` or `retry({ maxAttempts: 5 })`. */
export const retry = definePlugin({
  name: RETRY_PLUGIN,
  configKey: "retry",
  description:
    "Retries transient failures (network, connection lost, rate limit) of tools safe to repeat, with jittered backoff, retry-after and a retry budget.",
  schema: retrySchema,
  defaults: retryDefaults,
  // Which tools may run again after a failure is the user's choice: a project naming a write (or
  // switching onlySafeTools off, or perTool.<tool>.enabled) would make one call run twice.
  trustedKeys: ["tools", "onlySafeTools", "perTool"],
  apply(pipeline, config, services) {
    pipeline.hooks.toolCall.tap({ name: RETRY_PLUGIN, stage: TOOL_STAGE.RETRY }, retryWrapper(config, { clock: services.clock }));
  },
});

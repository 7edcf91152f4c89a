/**
 * `governor:timeout` (config key `timeout`): bounds every attempt of a governed tool call.
 *
 * - Per attempt (TOOL_STAGE.ATTEMPT, inside retry): `perTool[name] ?? defaultMs` (default
 *   {@link TOOL_TIMEOUT_MS}, 300 s). On expiry the attempt ends as `TIMEOUT_EXCEEDED` with
 *   "Tool exceeded the 300s timeout limit. Reassess strategy." (the real limit), and the signal the
 *   transport holds is aborted, so an MCP request is cancelled on the server.
 * - Total deadline (optional, `totalMs`): stamped on the call as `call.deadline` at TOOL_STAGE.RETRY - 50,
 *   just outside retry, so retry never sleeps past it and each attempt's limit is cut to what is left.
 * - The caller's signal (pi's Esc) ends the attempt at once and aborts the transport's signal.
 * - A successful attempt never aborts anything afterwards; timers are cleared on every path; a
 *   long-lived caller signal carries one listener however many calls share it.
 */
import { definePlugin, TOOL_STAGE, type Clock, type ToolWrapper } from "../../core/index.ts";
import { type AttemptLimit, runAttempt } from "./attempt.ts";
import { attemptLimitFor, timeoutDefaults, type TimeoutOptions, timeoutSchema, totalLimitFor } from "./config.ts";
import { TIMEOUT_PLUGIN } from "./constants.ts";

export { TOOL_TIMEOUT_MS, TIMEOUT_PLUGIN } from "./constants.ts";
export { timeoutDefaults, timeoutSchema, type TimeoutOptions } from "./config.ts";
export { linkedCount } from "../../lib/resilience/index.ts";

/** Where the total-deadline stamp sits: outside retry, inside the breaker. */
export const DEADLINE_STAGE = TOOL_STAGE.RETRY - 50;

/** The per-attempt timeout wrapper. Exported for tests and custom stacks; the plugin taps it at TOOL_STAGE.ATTEMPT. */
export function attemptTimeoutWrapper(options: TimeoutOptions, clock: Clock): ToolWrapper {
  return (next, tool) => {
    const attemptMs = attemptLimitFor(options, tool.name);
    const own: AttemptLimit = { ms: attemptMs, scope: "attempt", reportedMs: attemptMs };
    return (call) => {
      let limit = own;
      if (call.deadline !== undefined) {
        const left = call.deadline - clock.now();
        // The total deadline is the tighter bound: report the whole deadline, not the remainder.
        if (left < attemptMs) limit = { ms: Math.max(0, Math.floor(left)), scope: "total", reportedMs: Math.round(call.deadline - call.startedAt) };
      }
      return runAttempt(next, call, limit, clock);
    };
  };
}

/** Stamps `call.deadline = startedAt + total` for tools with a total deadline; others are left untouched (no cost). */
export function totalDeadlineWrapper(options: TimeoutOptions): ToolWrapper {
  return (next, tool) => {
    const total = totalLimitFor(options, tool.name);
    if (total <= 0) return next;
    return (call) => {
      const deadline = call.startedAt + total;
      return next({ ...call, deadline: call.deadline === undefined ? deadline : Math.min(call.deadline, deadline) });
    };
  };
}

/** The timeout plugin factory: `timeout()` or `timeout({ perTool: { kota_index: 600_000 } })`. */
export const timeout = definePlugin({
  name: TIMEOUT_PLUGIN,
  configKey: "timeout",
  description:
    "Ends each tool attempt that exceeds its limit (default 300 s) as TIMEOUT_EXCEEDED and cancels it on the server; optional total deadline across retries.",
  schema: timeoutSchema,
  defaults: timeoutDefaults,
  apply(pipeline, config, services) {
    pipeline.hooks.toolCall.tap({ name: TIMEOUT_PLUGIN, stage: DEADLINE_STAGE }, totalDeadlineWrapper(config));
    pipeline.hooks.toolCall.tap({ name: TIMEOUT_PLUGIN, stage: TOOL_STAGE.ATTEMPT }, attemptTimeoutWrapper(config, services.clock));
  },
});

/**
 * Resilience building blocks shared by the retry/timeout plugins and the MCP connection manager:
 * backoff schedules, the safe-to-repeat rule, and linking attempts to their caller's abort signal.
 */
export { jitteredBackoffMs, scheduledBackoffMs, type JitteredBackoffInput } from "./backoff.ts";
export { isSafeToRepeat, type RepeatHints } from "./safe-to-repeat.ts";
export { type CallerAbortListener, type LinkSet, linkCaller, linkedCount, unlinkCaller } from "./caller-links.ts";

/**
 * Safe matching of patterns from outside (the model, tool output, a project config): linear time or
 * a hard deadline, never a frozen event loop.
 *
 * There is no synchronous path for an arbitrary outside regex: a caller that must decide on the spot
 * (a config list checked per call) should match literally, or convert a glob without backtracking
 * (one greedy wildcard with a single restart point is O(n·m); `.*a.*a.*a` as a RegExp is not linear).
 * V8's linear engine (`--enable-experimental-regexp-engine`, flag `l`) was measured on Node 20 and 24
 * and rejected: it refuses the `i` flag, backreferences and lookahead, and needs a process-wide V8 flag.
 */
export { compilePattern, escapeRegExp, MAX_PATTERN_CHARS, type SafePattern } from "./pattern.ts";
export { createLineMatcher, DEFAULT_BATCH_DEADLINE_MS, PatternTooSlowError, tooSlowError, type LineMatcher, type LineMatcherOptions } from "./line-matcher.ts";

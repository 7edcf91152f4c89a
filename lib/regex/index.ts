/**
 * Safe matching of patterns from outside (the model, tool output, a project config): linear time or
 * a hard deadline, never a frozen event loop.
 */
export { compilePattern, escapeRegExp, MAX_PATTERN_CHARS, type SafePattern } from "./pattern.ts";
export { createLineMatcher, DEFAULT_BATCH_DEADLINE_MS, tooSlowError, type LineMatcher, type LineMatcherOptions } from "./line-matcher.ts";

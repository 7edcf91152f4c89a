/**
 * Patterns that come from outside (the model's grep argument, tool output) are compiled here. A
 * pattern made only of literal characters is matched on the calling thread (a literal search is
 * linear in the text); anything else runs in a worker thread under a deadline (see line-matcher.ts),
 * because V8's backtracking engine can take exponential time (`^(a+)+$` on 30 characters takes
 * seconds, and no signal can interrupt a running RegExp on the event loop).
 */
import { InvalidInputError } from "../../core/index.ts";

/** Longest pattern accepted, in characters: 500. */
export const MAX_PATTERN_CHARS = 500;

/** Characters that give a regular expression its meaning; a pattern without any of them is a literal. */
const SYNTAX = /[.*+?^${}()|[\]\\]/;
const SYNTAX_ALL = /[.*+?^${}()|[\]\\]/g;

/** A compiled outside pattern and how it must be run. */
export interface SafePattern {
  /** The pattern as the caller gave it (for messages). */
  readonly source: string;
  /** The compiled expression, without the `g`/`y` flags (no lastIndex state). */
  readonly regex: RegExp;
  /**
   * True when the expression matches literal text only (the input had no regex syntax, or was not a
   * valid expression and is searched as text): safe to run on the calling thread, linear time.
   */
  readonly literal: boolean;
}

/**
 * Compiles an outside pattern, case-insensitive. Text that is not a valid regular expression is
 * searched literally (a model's `foo(` means the characters). Throws an InvalidInputError for an empty
 * pattern or one longer than {@link MAX_PATTERN_CHARS}.
 */
export function compilePattern(source: string, options: { caseInsensitive?: boolean; maxChars?: number } = {}): SafePattern {
  const maxChars = options.maxChars ?? MAX_PATTERN_CHARS;
  const flags = options.caseInsensitive === false ? "" : "i";
  if (source.length === 0) throw new InvalidInputError("the pattern is empty", { agentMessage: "Pass a non-empty pattern, or leave the argument out." });
  if (source.length > maxChars) {
    throw new InvalidInputError(`pattern is ${source.length} characters (limit ${maxChars})`, {
      agentMessage: "Use a shorter pattern: a distinctive literal word is usually enough.",
    });
  }
  if (!SYNTAX.test(source)) return { source, regex: new RegExp(source, flags), literal: true };
  try {
    return { source, regex: new RegExp(source, flags), literal: false };
  } catch {
    return { source, regex: new RegExp(escapeRegExp(source), flags), literal: true };
  }
}

/** `text` with every regex syntax character escaped: the result matches `text` literally. */
export function escapeRegExp(text: string): string {
  return text.replace(SYNTAX_ALL, "\\$&");
}

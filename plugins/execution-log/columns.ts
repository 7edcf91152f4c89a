/**
 * What may be written into a text column of the execution log. The log is one file every project and
 * session shares, and several of its strings come from the model or the provider: the name of a tool
 * the model invented (any length, any text: a token as a name), the call ids a provider gives. Each
 * is bounded, and redacted where a redactor runs, before it is stored; calls to tools pi does not
 * have are counted under one label, so invented names never reach the file.
 */

/** The tool name rows of calls to tools pi does not have carry (parentheses are in no tool name). */
export const UNKNOWN_TOOL_LABEL = "(unknown tool)";

/** Longest text stored in a column, in characters: tool names and ids (pi's ids are ~40, config tool names at most 128). */
export const MAX_COLUMN_CHARS = 128;

/** Longest error category stored, in characters (pi-governor's categories are one short word). */
export const MAX_CATEGORY_CHARS = 64;

/** Characters of a long text that are redacted before it is cut (see {@link columnText}). */
const REDACT_WINDOW_CHARS = 8_192;

/**
 * `text` as stored: redacted first (a secret cut in half would no longer be recognised), then cut to
 * `max` characters, the cut ones named by a trailing `…`. A cut never splits a UTF-16 pair.
 */
export function columnText(text: string, max: number = MAX_COLUMN_CHARS, redact?: (text: string) => string): string {
  // Only the start is kept: redacting its first 8 KiB finds every secret that reaches into it
  // (a key block cut short is still hidden), at a bounded cost whatever the text's length.
  const shown = redact ? redact(text.length > REDACT_WINDOW_CHARS ? text.slice(0, REDACT_WINDOW_CHARS) : text) : text;
  if (shown.length <= max) return shown;
  let end = max - 1;
  const code = shown.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${shown.slice(0, end)}…`;
}

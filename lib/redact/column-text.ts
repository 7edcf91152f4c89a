/**
 * Text as a database column stores it. The execution log and the recall index are files every project
 * and session shares, and several of their strings come from the model or the provider: the name of a
 * tool the model invented (any length, any text: a token as a name), the call ids a provider gives.
 * Each is redacted and bounded here, one helper for every writer, before it is stored.
 */
import { redactorForWrites, type TextRedactor } from "./written.ts";

/** Longest text stored in a column, in characters: tool names and ids (pi's ids are ~40, config tool names at most 128). */
export const MAX_COLUMN_CHARS = 128;

/** Characters of a long text that are redacted before it is cut (see {@link columnText}). */
const REDACT_WINDOW_CHARS = 8_192;

/**
 * `text` as stored: redacted first (a secret cut in half would no longer be recognised) by `redactor`
 * (default: the built-in rules, see written.ts), then cut to `max` characters, the cut ones named by a
 * trailing `…`. A cut never splits a UTF-16 pair.
 */
export function columnText(text: string, max: number = MAX_COLUMN_CHARS, redactor?: TextRedactor): string {
  // Only the start is kept: redacting its first 8 KiB finds every secret that reaches into it
  // (a key block cut short is still hidden), at a bounded cost whatever the text's length.
  const shown = redactorForWrites(redactor).redact(text.length > REDACT_WINDOW_CHARS ? text.slice(0, REDACT_WINDOW_CHARS) : text);
  return cutText(shown, max);
}

/** `text` cut to `max` characters, the cut ones named by a trailing `…`; never splits a UTF-16 pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

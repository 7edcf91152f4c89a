/**
 * Untrusted text shown to a person (a config key a repository wrote, an MCP server's name, a stored
 * tool output in `pi-governor search`) must not drive the terminal: an escape sequence in it could
 * set the window title, move the cursor over earlier lines, or (OSC 52) write the user's clipboard.
 * These helpers show such characters as visible escapes (`\u001b`, `\u202e`) instead of sending them.
 */

/**
 * C0 controls, DEL, C1 controls (U+0080-U+009F: U+009B is a one-character CSI for some terminals),
 * line and paragraph separators, and the bidirectional overrides and isolates that reorder what a
 * line shows ("Trojan Source"). Tab and newline are listed too; {@link visibleLines} keeps them.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(ch: string): string {
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  if (ch === "\r") return "\\r";
  // JSON's spelling, so JSON output stays valid JSON and reads the same as text output.
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` for one line of human-facing output: every control character (newlines and tabs included,
 * so a value cannot forge a line of its own) shown as an escape, e.g. ESC as `\u001b`. Other text,
 * non-Latin scripts and emoji included, is unchanged.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, escapeChar);
}

/**
 * `text` for multi-line human-facing output: like {@link visible}, but newlines and tabs stay (a
 * report, a snippet of a stored output). A carriage return is shown, so no line can overwrite another.
 */
export function visibleLines(text: string): string {
  return text.replace(CONTROL_BUT_LINES, escapeChar);
}

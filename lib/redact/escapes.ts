/**
 * The unescaped view of a text: JSON (and JavaScript, shell) string escapes decoded at every depth
 * at once, so the rules see a secret however many times it was escaped. `kubectl get secret -o
 * json` puts a whole JSON document, private keys with `\n` line breaks included, into one string
 * (`last-applied-configuration`), and a tool that prints that JSON escapes it again: a quote is
 * `\"` at depth one, `\\\"` at depth two, 2^d - 1 backslashes before it at depth d.
 *
 * One pass: a run of backslashes (an escaped backslash `\u005c` counts as one) and the character
 * after it become that character decoded: `n r t b f` their control characters, `u` + 4 hex, `x` +
 * 2 hex and 3 octal digits the code unit, a quote, `/` or backtick itself, `e` before `[` the
 * terminal's ESC. A run before anything else stays one
 * backslash (a separator, as it was). Each view character remembers where its escape started in the
 * text, so what a rule finds in the view maps back to whole escapes in the text, and a placeholder
 * put there is valid at every depth (it needs no escaping).
 */

/** A decoded view of a text. */
export interface EscapeView {
  text: string;
  /** Where view offset `v` (0 to `text.length`) falls in the source: the start of the escape or character there. */
  toSource(v: number): number;
}

const BACKSLASH = 0x5c;

/** The value of `count` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, count: number): number {
  if (at + count > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i);
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

const ZERO = 0x30;
const SEVEN = 0x37;

/** The value of the 3 octal digits at `at` (at most 0o377), or -1. */
function octalAt(text: string, at: number): number {
  if (at + 3 > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + 3; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 7) return -1;
    value = value * 8 + d;
  }
  return value > 0o377 ? -1 : value;
}

/** What `\<c>` decodes to for the single-character escapes, by the code of c; 0: not one. */
const SIMPLE = new Uint16Array(128);
for (const [c, d] of [
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["b", "\b"],
  ["f", "\f"],
  ['"', '"'],
  ["'", "'"],
  ["/", "/"],
  ["`", "`"],
] as const)
  SIMPLE[c.charCodeAt(0)] = d.charCodeAt(0);
const U = 0x75;
/** Stretches up to this long are copied unit by unit (a native write costs more for a few characters). */
const SHORT_STRETCH = 32;
/** Code units go straight into a Uint16Array where the platform stores them as UTF-16LE does. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const X = 0x78;
const E = 0x65;
const OPEN_BRACKET = 0x5b;
const ESCAPE = 0x1b;

/** A growable list of int32. */
class Int32List {
  data = new Int32Array(256);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

/**
 * The view of `text` with every escape decoded (see the module comment), or undefined when it has
 * none (the view would be the text itself). Linear in time; memory is the view plus two numbers per
 * escape (where it is in the view and where it ends in the source), not per character.
 */
// Over 80 lines on purpose: one pass of the scanner every redaction runs over escaped text; its
// buffers and cursors stay locals of one loop (the redact bench's worst rows price a split).
export function unescapedView(text: string): EscapeView | undefined {
  const n = text.length;
  let at = text.indexOf("\\");
  if (at === -1) return undefined;
  // The view as UTF-16 code units: stretches without escapes are copied natively, an escape's
  // character is written as one unit.
  const units = Buffer.allocUnsafeSlow(n * 2);
  const codes = LITTLE_ENDIAN ? new Uint16Array(units.buffer, units.byteOffset, n) : undefined;
  // Per escape: its offset in the view, and where it ends in the source. Between escapes the view
  // copies the source one to one.
  const viewAt = new Int32List();
  const sourceEnd = new Int32List();
  let length = 0;
  let changed = false;
  let i = 0;
  while (at !== -1) {
    if (at - i > SHORT_STRETCH || (at > i && !codes)) {
      units.write(text.slice(i, at), length * 2, "utf16le");
      length += at - i;
    } else for (let k = i; k < at; k++) codes![length++] = text.charCodeAt(k);
    // The run: backslashes, and escaped backslashes written as \u005c after one of them.
    let end = at;
    for (;;) {
      while (end < n && text.charCodeAt(end) === BACKSLASH) end++;
      if (end > at && text.charCodeAt(end) === U && hexAt(text, end + 1, 4) === BACKSLASH) {
        end += 5;
        continue;
      }
      break;
    }
    const next = end < n ? text.charCodeAt(end) : -1;
    let decoded = next >= 0 && next < 128 && SIMPLE[next]! !== 0 ? SIMPLE[next]! : -1;
    let after = end + 1;
    if (decoded < 0 && next === E && text.charCodeAt(end + 1) === OPEN_BRACKET) {
      // `\e[`: a terminal sequence as printf and echo -e write it (terminal.ts takes it out of a view).
      decoded = ESCAPE;
    } else if (decoded < 0 && (next === U || next === X)) {
      const digits = next === U ? 4 : 2;
      decoded = hexAt(text, end + 1, digits);
      after = end + 1 + digits;
    } else if (decoded < 0 && next >= ZERO && next <= SEVEN) {
      // Three octal digits (`\055` is `-`: C, Python bytes, git's quoted names).
      decoded = octalAt(text, end);
      after = end + 3;
    }
    if (decoded < 0) {
      // Not an escape: the run stays one backslash, and what follows is read as text.
      after = end;
      decoded = BACKSLASH;
      if (end - at > 1) changed = true;
    } else changed = true;
    viewAt.push(length);
    sourceEnd.push(after);
    if (codes) codes[length++] = decoded;
    else units.writeUInt16LE(decoded, 2 * length++);
    i = after;
    at = text.indexOf("\\", i);
  }
  if (i < n) {
    units.write(text.slice(i), length * 2, "utf16le");
    length += n - i;
  }
  if (!changed) return undefined;
  const view = units.toString("utf16le", 0, length * 2);
  const marks = viewAt.data;
  const ends = sourceEnd.data;
  const escapes = viewAt.length;
  /** Where escape k starts in the source: right after the text copied since the previous escape. */
  const sourceStartOf = (k: number): number => (k === 0 ? marks[0]! : ends[k - 1]! + (marks[k]! - marks[k - 1]! - 1));
  return {
    text: view,
    toSource(v: number): number {
      if (v >= view.length) return n;
      if (escapes === 0 || marks[0]! > v) return v;
      // The last escape at or before v.
      let lo = 0;
      let hi = escapes - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (marks[mid]! <= v) lo = mid;
        else hi = mid - 1;
      }
      return marks[lo] === v ? sourceStartOf(lo) : ends[lo]! + (v - marks[lo]! - 1);
    },
  };
}

/**
 * The view of a text with its terminal escape sequences taken out. A colour code ends in a letter
 * (`ESC[33m`, `ESC[K`), so a token right after one (`GITHUB_TOKEN=ESC[33mghp_…`, `grep --color`'s
 * `ESC[01;31mESC[Kghp_…`) has a letter before it and no rule's start boundary holds; one inside a
 * token (grep highlighting part of it) splits it. The rules also run on this view, and what they find
 * maps back to the text over the sequences it spans.
 *
 * Taken out: CSI sequences (`ESC [` parameters, intermediates, a final byte), charset designations
 * (`ESC ( B`), and the two-character ones (`ESC M`, `ESC 7`, `ESC \`). Of an OSC (`ESC ]`, a hyperlink
 * or a title) only the introducer goes: its text stays in the view and is scanned (a URL there may hold
 * a password). A DCS, SOS, PM or APC (`ESC P`, `ESC X`, `ESC ^`, `ESC _`), which a terminal does not
 * draw, goes with its body up to its terminator (ST or BEL) when one comes within
 * {@link MAX_STRING_BODY_CHARS} (the body stays scanned in the text itself). Any other ESC goes alone.
 * The 8-bit C1 forms go like their ESC forms: U+009B is a CSI, U+0090/U+0098/U+009E/U+009F a string
 * sequence, every other C1 control (U+009D OSC, U+009C ST, …) goes alone.
 *
 * A backspace strikes the character before it (nroff and `man` draw bold as `g\bg`, underline as
 * `_\bg`): the view keeps what is drawn last, and a secret found there is hidden over the struck
 * characters too (kept-view.ts). A format character a terminal draws as nothing (a zero-width space,
 * a joiner, a soft hyphen, a byte order mark) goes too: one inside a token splits it for the rules.
 * Linear: one pass, and one forward scan for terminators.
 */

import { KeptView, type StrippedView } from "./kept-view.ts";

export type { StrippedView } from "./kept-view.ts";

const ESC = 0x1b;
/** Longest body of a DCS, SOS, PM or APC taken out with it, in characters. */
export const MAX_STRING_BODY_CHARS = 4096;
/** The 8-bit CSI (a terminal reads U+009B as `ESC [`). */
const C1_CSI = 0x9b;
const BACKSPACE = 0x08;
/**
 * What the view changes: a backspace, ESC, a C1 control (U+0080-U+009F), or a format character a
 * terminal draws as nothing (soft hyphen, zero-width space, joiners, direction marks and embeddings,
 * word joiner and invisible operators, byte order mark). A text without one has no view.
 */
const SPECIAL = /[\b\u001b\u0080-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\u034f/;

/** Whether `code` is a format character the view drops (see {@link SPECIAL}). */
function invisible(code: number): boolean {
  if (code < 0xad) return false;
  return (
    code === 0xad ||
    code === 0x34f ||
    code === 0x61c ||
    code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x206f) ||
    code === 0xfeff
  );
}

/** Whether `code` is a character the view changes (see {@link SPECIAL}). */
function special(code: number): boolean {
  return code === ESC || code === BACKSPACE || (code >= 0x80 && code <= 0x9f) || invisible(code);
}
/** `P`, `X`, `^`, `_` after ESC, or their C1 forms: a string sequence (DCS, SOS, PM, APC) a terminal does not draw. */
function stringIntroducer(code: number): boolean {
  return code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f;
}

/**
 * Where string sequences end in one text: the next terminator (ST: `ESC \\` or U+009C; BEL) at or
 * after a position. The text is scanned forward once whatever the number of introducers (a flood of
 * `ESC P` without a terminator costs one scan, not one per introducer).
 */
class Terminators {
  /** Start of the last terminator found (`text.length`: none after `scanned`). */
  private at = -1;
  private scanned = 0;
  constructor(private readonly text: string) {}

  /** End (exclusive) of a string sequence's body from `from`, through its terminator, or `from` when none comes within bound. */
  bodyEnd(from: number): number {
    const text = this.text;
    if (this.at < from) {
      let j = Math.max(from, this.scanned);
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (c === 0x9c || c === 0x07 || (c === ESC && text.charCodeAt(j + 1) === 0x5c)) break;
        j++;
      }
      this.at = j;
      this.scanned = j;
    }
    if (this.at >= this.text.length || this.at - from > MAX_STRING_BODY_CHARS) return from;
    return this.at + (text.charCodeAt(this.at) === ESC ? 2 : 1);
  }
}

/** Second characters of a two-character sequence (Fe: `@`-`_` but `[` and `]`; Fp: `6`-`9`, `=`, `>`; Fs: `c`). */
function twoCharacterFinal(code: number): boolean {
  return (code >= 0x40 && code <= 0x5f) || (code >= 0x36 && code <= 0x39) || code === 0x3d || code === 0x3e || code === 0x63;
}
/** `ESC (`, `)`, `*`, `+`, `-`, `.`, `/`: a charset designation, one more character follows. */
function designation(code: number): boolean {
  return code === 0x28 || code === 0x29 || code === 0x2a || code === 0x2b || code === 0x2d || code === 0x2e || code === 0x2f;
}

/** End (exclusive) of the sequence starting with the ESC or C1 control at `at`. */
function sequenceEnd(text: string, at: number, terminators: Terminators): number {
  const n = text.length;
  const first = text.charCodeAt(at);
  if (stringIntroducer(first)) return terminators.bodyEnd(at + 1);
  if (first !== ESC && first !== C1_CSI) return at + 1; // any other C1 control goes alone
  let j = at + 1;
  if (j >= n) return j;
  const c = text.charCodeAt(j);
  if (stringIntroducer(c)) return terminators.bodyEnd(j + 1);
  if (first === C1_CSI || c === 0x5b) {
    // CSI: parameters 0x30-0x3f, intermediates 0x20-0x2f, a final byte 0x40-0x7e (absent: a cut sequence).
    if (first === ESC) j++;
    while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    if (j < n && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j++;
    return j;
  }
  if (c === 0x5d) return j + 1; // OSC: the introducer only
  if (designation(c)) return Math.min(n, j + 2);
  if (twoCharacterFinal(c)) return j + 1;
  return j;
}

/**
 * The view of `text` as a terminal shows it: without its escape sequences and with its backspaces'
 * overstrikes resolved (see the module comment), or undefined when it has neither.
 */
export function ansiStrippedView(text: string): StrippedView | undefined {
  if (!SPECIAL.test(text)) return undefined;
  const view = new KeptView(text);
  const terminators = new Terminators(text);
  const n = text.length;
  let from = 0;
  let at = 0;
  while (at < n) {
    const code = text.charCodeAt(at);
    if ((code > 0x1b && code < 0x80) || (code < 0x1b && code !== BACKSPACE) || !special(code)) {
      at++;
      continue;
    }
    view.keep(from, at);
    if (code === BACKSPACE) {
      // A backspace that strikes nothing (at a line's start) changes nothing a terminal draws: it stays.
      from = view.strike() ? at + 1 : at;
      at++;
      continue;
    } else if (code === ESC ? text.charCodeAt(at + 1) === ESC : code >= 0xa0 || (code !== C1_CSI && !stringIntroducer(code))) {
      from = at + 1; // an ESC before another, a lone C1 control, a format character: it goes alone
    } else from = sequenceEnd(text, at, terminators);
    at = from;
  }
  view.keep(from, n);
  return view.view();
}

/**
 * Value scanning without rescanning: a rule whose value may run on for thousands of characters
 * (an Authorization header's credential) finds its key with a short regular expression and checks
 * the value here. A regular expression would scan the value again from every key inside it (a flood
 * of `authorization:` with no space between is one 1 MB run: seconds per MB); here the end of the
 * run and its next digit are remembered, so a key found inside a run already scanned is answered
 * from memory and every character is scanned at most once per rule and text (plus a few characters
 * of look-back per key). {@link RunMemo.scanned} counts the characters looked at, for tests.
 */

/** Whether a UTF-16 code unit belongs to a run. */
export type CharTest = (code: number) => boolean;

/** JavaScript's `\s`: what ends a value everywhere. */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** A test from a list of excluded ASCII characters: anything but `\s` and these (and control characters, with `controls`). */
export function allExcept(excluded: string, controls = false): CharTest {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = isSpace(c) || (controls && (c < 0x20 || c === 0x7f)) ? 0 : 1;
  for (const ch of excluded) table[ch.charCodeAt(0)] = 0;
  return (code) => (code < 128 ? table[code] === 1 : !isSpace(code));
}

const isDigit: CharTest = (code) => code >= 0x30 && code <= 0x39;

/** Most characters a key may end before the end of the one before it (keys are short): the look-back bound. */
const MAX_BACKWARD = 128;

/**
 * Remembers, for one text and one run alphabet, where the run starting at a position ends and where
 * its next digit is. Positions are asked for in (nearly) increasing order, as keys are found.
 */
export class RunMemo {
  /** Characters looked at so far (tests assert it stays linear in the text's length). */
  scanned = 0;
  private runFrom = -1;
  private runEnd = -1;
  private digitFrom = -1;
  private digitAt = -1;
  private digitEnd = -1;

  constructor(
    private readonly text: string,
    private readonly member: CharTest,
  ) {}

  /** End (exclusive) of the run of member characters starting at `p`; `p` itself when none. */
  runEndFrom(p: number): number {
    const { text } = this;
    if (this.runFrom >= 0 && p <= this.runEnd && p >= this.runFrom - MAX_BACKWARD) {
      if (p >= this.runFrom) return this.runEnd;
      // A key that ended a little before the remembered run: join it if nothing between breaks it.
      let e = p;
      while (e < this.runFrom && this.member(text.charCodeAt(e))) e++, this.scanned++;
      if (e < this.runFrom) return e;
      this.runFrom = p;
      return this.runEnd;
    }
    let e = p;
    while (e < text.length && this.member(text.charCodeAt(e))) e++, this.scanned++;
    this.runFrom = p;
    this.runEnd = e;
    return e;
  }

  /** The first digit at or after `p` and before `end` (the run's end), or `end` when there is none. */
  digitFromUntil(p: number, end: number): number {
    const { text } = this;
    if (this.digitFrom >= 0 && end === this.digitEnd && p <= this.digitAt && p >= this.digitFrom - MAX_BACKWARD) {
      if (p >= this.digitFrom) return this.digitAt;
      for (let i = p; i < this.digitFrom; i++, this.scanned++) if (isDigit(text.charCodeAt(i))) return i;
      this.digitFrom = p;
      return this.digitAt;
    }
    let i = p;
    while (i < end && !isDigit(text.charCodeAt(i))) i++, this.scanned++;
    this.digitFrom = p;
    this.digitAt = i;
    this.digitEnd = end;
    return i;
  }
}

/**
 * Checks the value that starts at `start` (right after a key) and returns where the hidden part
 * ends, or -1 when there is no value to hide. `memo` is this pass's memory of the text.
 */
export type ValueMatcher = (text: string, start: number, memo: RunMemo) => number;

/** A value rule's run alphabet and its matcher. */
export interface ValueRule {
  /** The characters a value is made of (what {@link RunMemo} remembers runs of). */
  chars: CharTest;
  match: ValueMatcher;
}

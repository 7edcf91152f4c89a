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
 * a password). Any other ESC goes alone. One pass, each character looked at once.
 */

/** A view of a text with sequences taken out. */
export interface StrippedView {
  text: string;
  /**
   * Where view offset `v` (0 to `text.length`) falls in the source. Where sequences were taken out
   * right at `v`, a start (`end` false) maps after them and an end (`end` true) before them, so a
   * span found in the view covers the sequences inside it and none around it.
   */
  toSource(v: number, end?: boolean): number;
}

const ESC = 0x1b;
/** Second characters of a two-character sequence (Fe: `@`-`_` but `[` and `]`; Fp: `6`-`9`, `=`, `>`; Fs: `c`). */
function twoCharacterFinal(code: number): boolean {
  return (code >= 0x40 && code <= 0x5f) || (code >= 0x36 && code <= 0x39) || code === 0x3d || code === 0x3e || code === 0x63;
}
/** `ESC (`, `)`, `*`, `+`, `-`, `.`, `/`: a charset designation, one more character follows. */
function designation(code: number): boolean {
  return code === 0x28 || code === 0x29 || code === 0x2a || code === 0x2b || code === 0x2d || code === 0x2e || code === 0x2f;
}

/** End (exclusive) of the sequence starting with the ESC at `at`. */
function sequenceEnd(text: string, at: number): number {
  const n = text.length;
  let j = at + 1;
  if (j >= n) return j;
  const c = text.charCodeAt(j);
  if (c === 0x5b) {
    // CSI: parameters 0x30-0x3f, intermediates 0x20-0x2f, a final byte 0x40-0x7e (absent: a cut sequence).
    j++;
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

/** The view of `text` without its escape sequences (see the module comment), or undefined when it has no ESC. */
export function ansiStrippedView(text: string): StrippedView | undefined {
  let at = text.indexOf("\u001b");
  if (at === -1) return undefined;
  // Per run of sequences taken out: where it is in the view, where it starts and ends in the source.
  const viewAt: number[] = [];
  const sourceStart: number[] = [];
  const sourceEnd: number[] = [];
  const kept: string[] = [];
  let from = 0;
  let length = 0;
  while (at !== -1) {
    kept.push(text.slice(from, at));
    length += at - from;
    let end = sequenceEnd(text, at);
    // Sequences one after another are one run.
    while (end < text.length && text.charCodeAt(end) === ESC) end = sequenceEnd(text, end);
    viewAt.push(length);
    sourceStart.push(at);
    sourceEnd.push(end);
    from = end;
    at = text.indexOf("\u001b", from);
  }
  kept.push(text.slice(from));
  const view = kept.join("");
  return {
    text: view,
    toSource(v: number, end = false): number {
      // The last run at or before v.
      let lo = 0;
      let hi = viewAt.length - 1;
      if (viewAt[0]! > v) return v;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (viewAt[mid]! <= v) lo = mid;
        else hi = mid - 1;
      }
      if (viewAt[lo] === v) return end ? sourceStart[lo]! : sourceEnd[lo]!;
      return sourceEnd[lo]! + (v - viewAt[lo]!);
    },
  };
}

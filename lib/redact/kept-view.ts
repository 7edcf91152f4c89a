/**
 * A view of a text built from the parts of it that are kept, in order: what a terminal shows once its
 * sequences are taken out and its backspaces have struck characters over (terminal.ts). Offsets of
 * the view map back to the text, so what the rules find in the view is hidden in the text.
 *
 * A backspace strikes the last character kept (never back past a line's start): `g\bg` shows `g`,
 * `_\bg` shows `g`. What was taken out between two kept parts is a gap; a gap that holds a struck
 * character belongs to what is found next to it (a secret found in the view is hidden over the
 * characters drawn over it too), other gaps (escape sequences) to neither side.
 */

/** A view of a text with parts taken out. */
export interface StrippedView {
  text: string;
  /**
   * Where view offset `v` (0 to `text.length`) falls in the source. Where parts were taken out right
   * at `v`, a start (`end` false) maps after them and an end (`end` true) before them, so a span found
   * in the view covers what was taken out inside it and none around it; a gap with a struck character
   * is covered from both sides.
   */
  toSource(v: number, end?: boolean): number;
}

/** Collects the kept parts of one text (in order) and builds its view. Linear: each character is kept and struck at most once. */
export class KeptView {
  private starts = new Int32Array(16);
  private ends = new Int32Array(16);
  /** `struck[i]` is 1 when the gap after kept part `i` holds a struck character. */
  private struck = new Uint8Array(16);
  /** Parts kept (the arrays hold more slots, reused after a strike). */
  private n = 0;
  /** The gap before the first part holds a struck character. */
  private leadingStruck = false;

  constructor(private readonly source: string) {}

  /** Keeps the source's [from, to). */
  keep(from: number, to: number): void {
    if (to <= from) return;
    const last = this.n - 1;
    if (last >= 0 && this.ends[last] === from) {
      this.ends[last] = to;
      return;
    }
    if (this.n === this.starts.length) this.grow();
    this.starts[this.n] = from;
    this.ends[this.n] = to;
    this.struck[this.n] = 0;
    this.n++;
  }

  /** A backspace: the last character kept is struck. False when none is (the view is empty or at a line's start). */
  strike(): boolean {
    const i = this.n - 1;
    if (i < 0) return false;
    const c = this.source.charCodeAt(this.ends[i]! - 1);
    if (c === 0x0a || c === 0x0d || c === 0x08) return false; // a line's start, or a backspace kept there
    this.ends[i]!--;
    this.struck[i] = 1;
    if (this.ends[i] === this.starts[i]) {
      this.n--;
      if (this.n > 0) this.struck[this.n - 1] = 1;
      else this.leadingStruck = true;
    }
    return true;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    const struck = new Uint8Array(size);
    starts.set(this.starts);
    ends.set(this.ends);
    struck.set(this.struck);
    this.starts = starts;
    this.ends = ends;
    this.struck = struck;
  }

  /** The view of what was kept. */
  view(): StrippedView {
    const { n, source, leadingStruck } = this;
    const starts = this.starts.subarray(0, n);
    const ends = this.ends.subarray(0, n);
    const struck = this.struck.subarray(0, n);
    const total = source.length;
    const viewAt = new Int32Array(n);
    let length = 0;
    for (let i = 0; i < n; i++) {
      viewAt[i] = length;
      length += ends[i]! - starts[i]!;
    }
    // Few long parts: slices joined. Many short ones (a flood of sequences or backspaces): the
    // characters copied once, which costs less than a slice per part.
    let text = "";
    if (n * 32 <= length) {
      const parts: string[] = new Array(n);
      for (let i = 0; i < n; i++) parts[i] = source.slice(starts[i]!, ends[i]!);
      text = parts.join("");
    } else {
      const codes = new Uint16Array(length);
      let w = 0;
      for (let i = 0; i < n; i++) for (let j = starts[i]!; j < ends[i]!; j++) codes[w++] = source.charCodeAt(j);
      for (let i = 0; i < length; i += CHUNK) text += String.fromCharCode.apply(null, codes.subarray(i, i + CHUNK) as unknown as number[]);
    }
    return {
      text,
      toSource(v: number, end = false): number {
        if (n === 0) return v;
        // The last part that starts at or before v.
        let lo = 0;
        let hi = n - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (viewAt[mid]! <= v) lo = mid;
          else hi = mid - 1;
        }
        const offset = v - viewAt[lo]!;
        if (offset > 0) {
          if (offset < ends[lo]! - starts[lo]!) return starts[lo]! + offset;
          // The view's end: an end covers a trailing gap with a struck character.
          return end && struck[lo] ? total : ends[lo]!;
        }
        // At the start of part `lo`, right after the gap before it.
        const gapStart = lo > 0 ? ends[lo - 1]! : 0;
        const gapStruck = lo > 0 ? struck[lo - 1] === 1 : leadingStruck;
        if (end) return gapStruck ? starts[lo]! : gapStart;
        return gapStruck ? gapStart : starts[lo]!;
      },
    };
  }
}

/** Code units turned into a string per call (an argument list has a bound). */
const CHUNK = 8192;

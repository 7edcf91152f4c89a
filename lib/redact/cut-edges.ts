/**
 * Secrets cut by pi's own truncation. pi cuts a large output for the model and saves the whole of it:
 * its bash keeps the last 50 KB / 2,000 lines, pi 1.x's MCP client the first and last 10 KB. A cut
 * inside a token leaves a piece no rule recognises (`bCdEf…` without its `ghp_A`), a cut between a
 * variable's name and its value leaves a bare value, a cut inside a key block leaves base64 lines
 * without their BEGIN. The model must see no piece of them.
 *
 * What the model sees holds pieces of the whole output: a head (the output's start) and a tail (its
 * end), each copied exactly. They are found in the visible text by matching the whole output's first
 * and last characters and extending the match; the rules then run on the whole output from the visible
 * piece to {@link CUT_WINDOW_CHARS} past its cut (the cost is bounded whatever the output's size), and
 * every secret found there that reaches into what is visible is hidden there, by position.
 */
import { markerAt } from "./cut-pieces.ts";
import type { Span } from "./key-blocks.ts";

/** Characters of the whole output read past each cut: longer than any secret a rule finds (a key block is at most 16 KiB). */
export const CUT_WINDOW_CHARS = 64 * 1024;
/** Characters matched to find a piece of the whole output in the visible text. */
const ANCHOR_CHARS = 64;
/** Places a head's first characters are tried at (the same line may repeat before the real head). */
const MAX_TRIES = 8;

/** What finds secrets: lib/redact's Redactor. */
export interface SpanFinder {
  secretSpans(text: string): Array<Span & { rule: string }>;
}

/** The ends of the whole output, as lib/pi's readPiFullOutputEnds gives them. */
export interface OutputEnds {
  head: string;
  tail: string;
  /** Head and tail are the whole output. */
  whole: boolean;
}

/**
 * Spans of `visible` (what pi kept of an output) that hold a piece of a secret cut by pi, named by
 * the rule that found the secret in the whole output. Empty when no piece of the output's ends is
 * found in `visible` (nothing to map) or nothing crosses a cut.
 */
export function cutEdgeSpans(visible: string, ends: OutputEnds, finder: SpanFinder): Array<Span & { rule: string }> {
  const out: Array<Span & { rule: string }> = [];
  const head = headPiece(visible, ends.head);
  if (head && !(ends.whole && head.length >= ends.head.length)) {
    // The output is visible from its start up to `cut`: every secret of [0, cut + window) that
    // reaches before the cut is hidden up to it (found with all its context, the cut one included).
    const cut = head.length;
    const window = ends.head.slice(0, Math.min(ends.head.length, cut + CUT_WINDOW_CHARS));
    for (const s of finder.secretSpans(window)) if (s.start < cut) out.push({ rule: s.rule, start: head.at + s.start, end: head.at + Math.min(s.end, cut) });
  }
  const tail = tailPiece(visible, ends.tail);
  const cut = tail ? tail.sourceEnd - tail.length : 0;
  if (tail && cut > 0) {
    // The output is visible from `cut` to its end: every secret of [cut - window, end) that reaches
    // past the cut is hidden from it on (a token cut in two, a value whose name was cut away).
    const from = Math.max(0, cut - CUT_WINDOW_CHARS);
    for (const s of finder.secretSpans(ends.tail.slice(from, tail.sourceEnd))) {
      const end = from + s.end;
      if (end > cut) out.push({ rule: s.rule, start: tail.at + Math.max(0, from + s.start - cut), end: tail.at + (end - cut) });
    }
  }
  return out;
}

/** Where the output's start stands in `visible`: at `at`, `length` characters of it. Undefined when not found. */
function headPiece(visible: string, head: string): { at: number; length: number } | undefined {
  if (head.length < ANCHOR_CHARS) return undefined;
  const anchor = head.slice(0, ANCHOR_CHARS);
  let from = 0;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const at = visible.indexOf(anchor, from);
    if (at === -1) return undefined;
    let n = ANCHOR_CHARS;
    while (at + n < visible.length && n < head.length && visible.charCodeAt(at + n) === head.charCodeAt(n)) n++;
    // The real head runs to where pi cut it: to the end of the visible text, into pi's own notice, or
    // to the marker of a middle cut (codemode's `…N tokens truncated…` may follow a short head).
    if (n === head.length || at + n === visible.length || n > ANCHOR_CHARS * 4 || markerAt(visible, at + n)) return { at, length: n };
    from = at + 1;
  }
  return undefined;
}

/**
 * Where the output's end stands in `visible`: it ends at `at + length` in `visible` and at `sourceEnd`
 * in `tail`. Trailing white space pi may have dropped is not needed to match. Undefined when not found.
 */
function tailPiece(visible: string, tail: string): { at: number; length: number; sourceEnd: number } | undefined {
  let sourceEnd = tail.length;
  while (sourceEnd > 0 && /\s/.test(tail[sourceEnd - 1]!) && tail.length - sourceEnd < 16) sourceEnd--;
  if (sourceEnd < ANCHOR_CHARS) return undefined;
  const anchor = tail.slice(sourceEnd - ANCHOR_CHARS, sourceEnd);
  const end = visible.lastIndexOf(anchor);
  if (end === -1) return undefined;
  let n = ANCHOR_CHARS;
  while (end + ANCHOR_CHARS - n - 1 >= 0 && sourceEnd - n - 1 >= 0 && visible.charCodeAt(end + ANCHOR_CHARS - n - 1) === tail.charCodeAt(sourceEnd - n - 1))
    n++;
  return { at: end + ANCHOR_CHARS - n, length: n, sourceEnd };
}

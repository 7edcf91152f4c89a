/**
 * Which rule anchors a text holds, found in one pass. Every rule is skipped when none of its anchors
 * occurs; asking `includes` once per anchor costs a scan per anchor, and on a run of an anchor's
 * first character (`AAAA…`, `____…`, `ghu_ghu_…`) each scan stops at every position: 46 anchors
 * made that 30 ms per MB. One expression of all anchors scans the text once; each anchor found is
 * dropped from it and the scan goes on from there, so a text is scanned about once whatever it holds.
 */
import { escapeRegExp } from "./shape.ts";

/** Below this many characters, one `includes` per anchor is cheaper than compiling expressions. */
const SCAN_FROM_CHARS = 2 * 1024;

/** Finds which of a fixed set of literal anchors occur in a text. */
export class AnchorScan {
  private readonly anchors: readonly string[];
  private readonly all: RegExp | undefined;

  constructor(anchors: Iterable<string>) {
    this.anchors = [...new Set(anchors)].filter((a) => a.length > 0);
    this.all = this.anchors.length ? alternation(this.anchors) : undefined;
  }

  /** A test of whether an anchor occurs in `text` (anchors outside the set: `includes`). */
  present(text: string): (anchor: string) => boolean {
    if (text.length < SCAN_FROM_CHARS || !this.all) return (anchor) => text.includes(anchor);
    const found = new Set<string>();
    let remaining = this.anchors;
    let re: RegExp = this.all;
    let from = 0;
    while (remaining.length) {
      re.lastIndex = from;
      const m = re.exec(text);
      if (!m) break;
      // Every anchor that starts here (one may be a prefix of another), then the rest from here on.
      for (const a of remaining) if (text.startsWith(a, m.index)) found.add(a);
      remaining = remaining.filter((a) => !found.has(a));
      if (!remaining.length) break;
      re = alternation(remaining);
      from = m.index + 1;
    }
    const known = new Set(this.anchors);
    return (anchor) => (known.has(anchor) ? found.has(anchor) : text.includes(anchor));
  }
}

/** One global expression matching any of `anchors`, longest first. */
export function alternation(anchors: readonly string[]): RegExp {
  return new RegExp(
    [...anchors]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
}

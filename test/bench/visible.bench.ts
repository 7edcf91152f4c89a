/**
 * What showing untrusted text to a person costs (`visibleLines`: pi's dialogs, notices, `pi-governor
 * search`), per MB, on the inputs that cost it most: floods of characters it escapes (each becomes
 * six characters), words of look-alike letters, invisible characters, marks and Hangul jamo judged by
 * the character before them, look-alike punctuation and digits, a long word with one non-ASCII letter, and plain text of several scripts. Baseline: the same MB of ESC escaped by the regular
 * expression these helpers used before (`text.replace(/[\u0000-\u001f...]/g, escape)`). Target: no
 * input costs more than 1.5x that baseline (an escape flood writes six characters per character
 * either way; every other input costs a fraction of it).
 */
import { visibleLines } from "../../lib/visible/index.ts";
import type { BenchSuite } from "./harness.ts";

const MB = 1024 * 1024;

/** Best of `runs` (a shared machine: the least disturbed run is the cost of the code). */
function bestMs(fn: () => unknown, runs = 9): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}

const suite: BenchSuite = async (report) => {
  const inputs: Record<string, string> = {
    "ESC flood": "\u001b".repeat(MB),
    "look-alike words (аррӏе)": "аррӏе ".repeat(MB / 11),
    "one 1 MB look-alike word": "аррӏе".repeat(MB / 10),
    "mixed-script words (gіthub)": "gіthub ".repeat(MB / 8),
    "U+200B flood": "\u200b".repeat(MB / 3),
    "tag-character flood": "\u{e0041}".repeat(MB / 4),
    "1 MB ASCII word + one é": `${"a".repeat(MB)}é`,
    "marks on ASCII letters (e + U+0301)": "e\u0301".repeat(MB / 3),
    "overlay strokes on Cyrillic letters": "п\u0336".repeat(MB / 4),
    "decomposed Korean (jamo)": "\u1100\u1161\u11a8 ".repeat(MB / 10),
    "stray trailing jamo": "\u11a8".repeat(MB / 3),
    "Roman numerals in words (gⅰthub)": "gⅰthub ".repeat(MB / 9),
    "look-alike punctuation (a∕b a\u037eb)": "a\u2215b a\u037eb ".repeat(MB / 14),
    "non-ASCII digits in words (g൦൦gle)": "g\u0d66\u0d66gle ".repeat(MB / 12),
    "Russian prose": "привет мир ".repeat(MB / 22),
    "emoji with joiners": "👨‍👩‍👧 ".repeat(MB / 20),
    "plain ASCII": "hello world ".repeat(MB / 12),
  };
  const oldControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const oldEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  const baseline = bestMs(() => inputs["ESC flood"]!.replace(oldControl, oldEscape));
  report({ name: "baseline: 1 MB of ESC, the old control-character expression", value: `${baseline.toFixed(1)} ms/MB` });
  for (const [name, text] of Object.entries(inputs)) {
    const perMb = (bestMs(() => visibleLines(text)) / Buffer.byteLength(text)) * MB;
    report({
      name: `visibleLines: ${name}`,
      value: `${perMb.toFixed(1)} ms/MB`,
      ratio: perMb / baseline,
      note: "x the baseline (target <= 1.5)",
      pass: perMb <= 1.5 * baseline,
    });
  }
};
export default suite;

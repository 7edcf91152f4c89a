/**
 * "did you mean ...?" for a misspelled name (a config key, a command-line option): the known name
 * closest to it by edit distance (insertions, deletions, substitutions and swaps of neighbours,
 * letter case ignored), when it is close enough to be a slip rather than another word.
 */

/** Edit distance (optimal string alignment) between `a` and `b`, counting a swap of neighbours as one. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Names longer than this are not compared (a bound on the work for text from a file). */
const MAX_NAME_CHARS = 100;

/**
 * The candidate closest to `word` when it is at most a third of its length away (at least 1, at
 * most 3 edits), else undefined. Ties go to the earlier candidate.
 */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  if (!word || word.length > MAX_NAME_CHARS) return undefined;
  const lower = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    if (name === word || name.length > MAX_NAME_CHARS || Math.abs(name.length - word.length) > limit) continue;
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean "x"?)` for `word` among `candidates`, or "". */
export function didYouMean(word: string, candidates: Iterable<string>, quote = (n: string) => `"${n}"`): string {
  const name = closestName(word, candidates);
  return name ? ` (did you mean ${quote(name)}?)` : "";
}

/**
 * Tool-name globs (`kota_*`, `everything_?cho`, `*`): `*` matches any run of characters, `?` one
 * character, everything else itself. Matched by the greedy two-pointer scan (back to the last star
 * on a mismatch), never by a backtracking regex: a glob like `*a*a*a*b` against a long name costs
 * at most (name length x glob length) steps, where a regex `^.*a.*a.*a.*b$` takes exponential time.
 */

/** A predicate for tool names matching `glob`. */
export function globMatcher(glob: string): (name: string) => boolean {
  if (glob === "*") return () => true;
  if (!/[*?]/.test(glob)) return (name) => name === glob;
  return (name) => globMatches(glob, name);
}

/** Whether `name` matches `glob` as a whole. */
export function globMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === name[n]))) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else return false;
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

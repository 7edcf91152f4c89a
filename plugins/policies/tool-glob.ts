/**
 * Tool-name globs for the policies plugin: `*` matches any run of characters, everything else
 * itself (`mcp__github__*`, `kota_*`, `*`). Tool names are at most 64 characters and patterns at
 * most 128 (the config schema bounds both), and the match is the greedy two-pointer walk with one
 * backtrack point, linear in practice and never worse than pattern x name.
 */

/** Longest pattern the config accepts, in characters. */
export const MAX_TOOL_GLOB_CHARS = 128;

/** Whether `name` matches `glob` (`*` = any run, case-sensitive like pi's tool names). */
export function toolGlobMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = n;
    } else if (g < glob.length && glob[g] === name[n]) {
      g++;
      n++;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

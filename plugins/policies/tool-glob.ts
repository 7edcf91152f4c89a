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

/**
 * Whether `glob` matches some name that begins with `prefix` (`mcp__acme__ehco*` and `mcp__acme__`
 * yes, `mcp__acmee__*` no): with no `*`, the glob itself must begin with the prefix; with one, the
 * text before its first `*` and the prefix must agree as far as both go (the `*` takes the rest of
 * the prefix). Linear in the shorter of the two.
 */
export function globCouldStartWith(glob: string, prefix: string): boolean {
  const star = glob.indexOf("*");
  if (star < 0) return glob.startsWith(prefix);
  const literal = glob.slice(0, star);
  return literal.length >= prefix.length ? literal.startsWith(prefix) : prefix.startsWith(literal);
}

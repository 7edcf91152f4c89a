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
 * Whether some name matches both globs (`mcp__acme__ehco*` and `mcp__acme__*` do; `mcp__acmee__*`
 * and `mcp__acme__*` do not): a walk over pairs of positions, at most `a.length x b.length` steps.
 */
export function globsIntersect(a: string, b: string): boolean {
  const width = b.length + 1;
  const seen = new Uint8Array((a.length + 1) * width);
  const stack = [0];
  seen[0] = 1;
  const visit = (i: number, j: number) => {
    const k = i * width + j;
    if (!seen[k]) (seen[k] = 1), stack.push(k);
  };
  while (stack.length) {
    const k = stack.pop()!;
    const i = Math.floor(k / width);
    const j = k % width;
    if (i === a.length && j === b.length) return true;
    const sa = i < a.length && a[i] === "*";
    const sb = j < b.length && b[j] === "*";
    // A star may match nothing more; a star against a character (or two stars) takes one step.
    if (sa) visit(i + 1, j);
    if (sb) visit(i, j + 1);
    if (i < a.length && j < b.length) {
      if (sa && !sb) visit(i, j + 1);
      else if (sb && !sa) visit(i + 1, j);
      else if (!sa && !sb && a[i] === b[j]) visit(i + 1, j + 1);
    }
  }
  return false;
}

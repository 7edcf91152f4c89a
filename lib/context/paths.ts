/**
 * File paths in tool calls, for the strategies that reason about files (stale reads, protected
 * paths): which argument names a file, how two spellings of one path compare, and the
 * `protectedFilePatterns` globs.
 *
 * Glob syntax: `**` any run of characters, "/" included (followed by "/" it also matches no folder at all), `*` any run
 * of characters but "/", `?` one character but "/", anything else itself; a leading `./` is ignored.
 *
 * Globs come from config files, which a cloned repository may ship, so they are matched by dynamic
 * programming over (pattern position x path position), never by a backtracking regex: a crafted
 * pattern costs at most pattern length x path length steps. That product is bounded too: the config
 * allows at most {@link MAX_PATTERN_TOTAL_CHARS} pattern characters, a path longer than PATH_MAX
 * (a name longer than NAME_MAX) names no file and is never matched, and each path is matched once
 * per session (the answer is remembered), not on every model request. Without these bounds 100
 * patterns of 200 characters against a 20,000-character path the model read took over a second of
 * pi's event loop on every request.
 */

/** Most characters of all `protectedFilePatterns` together (the config refuses more). */
export const MAX_PATTERN_TOTAL_CHARS = 2_000;
/** Longest path matched, in characters (Linux PATH_MAX): a longer one cannot name a file. */
export const MAX_MATCHED_PATH_CHARS = 4_096;
/** Longest file name matched by a pattern without "/", in characters (NAME_MAX). */
export const MAX_MATCHED_NAME_CHARS = 255;
/** Paths whose answer a matcher remembers; it forgets them all when full. */
const REMEMBERED_PATHS = 4_096;

/** Matching work done, for tests and benches: DP cells (pattern position x path position) visited. */
export interface MatchWork {
  cells: number;
}

/** Argument names that hold the file a call reads or changes (pi's tools use `path`). */
export const PATH_ARGS = ["path", "file_path", "filePath"] as const;

/** The file a call names, from its arguments, or undefined. */
export function callPath(args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!args) return undefined;
  for (const key of PATH_ARGS) {
    const v = args[key];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

/**
 * One spelling per file: backslashes as slashes, no leading `./`, no `@` prefix (pi accepts
 * `@path`), no repeated or trailing slashes, and relative to `cwd` when the path lies inside it.
 */
export function normalizePath(path: string, cwd?: string): string {
  let p = path
    .trim()
    .replace(/\\/g, "/")
    .replace(/^@/, "")
    .replace(/\/{2,}/g, "/");
  while (p.startsWith("./")) p = p.slice(2);
  if (p.length > 1) p = p.replace(/\/$/, "");
  if (cwd) {
    const root = cwd.replace(/\\/g, "/").replace(/\/$/, "");
    if (p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
  }
  return p;
}

/** Whether `path` (normalized) matches `glob` as a whole; see the module comment for the syntax. */
export function pathGlobMatches(glob: string, path: string, work?: MatchWork): boolean {
  const g = glob.replace(/^\.\//, "");
  if (work) work.cells += g.length * (path.length + 1);
  // reach[j]: the first j characters of the path are matched by the pattern read so far.
  let reach = new Uint8Array(path.length + 1);
  reach[0] = 1;
  let i = 0;
  while (i < g.length) {
    const next = new Uint8Array(path.length + 1);
    if (g[i] === "*" && g[i + 1] === "*") {
      // `**/` also matches no folder at all; `**` matches any run of characters, slashes included.
      const slash = g[i + 2] === "/";
      let on = 0;
      for (let j = 0; j <= path.length; j++) {
        if (reach[j]) on = 1;
        if (on) next[j] = 1;
      }
      if (slash) {
        // `**/x` : either no folders (skip "**/"), or any run ending in "/".
        const after = new Uint8Array(path.length + 1);
        for (let j = 0; j <= path.length; j++) {
          if (reach[j]) after[j] = 1;
          if (j > 0 && next[j - 1] && path[j - 1] === "/") after[j] = 1;
        }
        reach = after;
        i += 3;
        continue;
      }
      reach = next;
      i += 2;
      continue;
    }
    if (g[i] === "*") {
      let on = 0;
      for (let j = 0; j <= path.length; j++) {
        if (reach[j]) on = 1;
        if (on) next[j] = 1;
        if (j < path.length && path[j] === "/") on = 0;
      }
    } else {
      for (let j = 0; j < path.length; j++) if (reach[j] && path[j] !== "/" && (g[i] === "?" || g[i] === path[j])) next[j + 1] = 1;
      if (g[i] === "/") for (let j = 0; j < path.length; j++) if (reach[j] && path[j] === "/") next[j + 1] = 1;
    }
    reach = next;
    i++;
  }
  return reach[path.length] === 1;
}

/**
 * A predicate for protected paths. A pattern without "/" matches the file name in any folder
 * (`AGENTS.md`, `*.lock`); one with "/" matches the path relative to `cwd`. A path longer than
 * {@link MAX_MATCHED_PATH_CHARS} is never protected (no file has it). Answers are remembered per
 * path. `work` counts the matching done (tests, benches).
 */
export function protectedPathMatcher(patterns: readonly string[], cwd?: string, work?: MatchWork): (path: string) => boolean {
  // The config caps the total; a caller that passes more (code, not config) gets the first patterns that fit.
  const kept: string[] = [];
  let total = 0;
  for (const p of patterns) {
    if (total + p.length > MAX_PATTERN_TOTAL_CHARS) break;
    kept.push(p);
    total += p.length;
  }
  if (!kept.length) return () => false;
  const remembered = new Map<string, boolean>();
  const match = (raw: string): boolean => {
    if (raw.length > 2 * MAX_MATCHED_PATH_CHARS) return false;
    const path = normalizePath(raw, cwd);
    if (path.length > MAX_MATCHED_PATH_CHARS) return false;
    const name = path.slice(path.lastIndexOf("/") + 1);
    return kept.some((p) => (p.includes("/") ? pathGlobMatches(p, path, work) : name.length <= MAX_MATCHED_NAME_CHARS && pathGlobMatches(p, name, work)));
  };
  return (raw) => {
    const known = remembered.get(raw);
    if (known !== undefined) return known;
    const answer = match(raw);
    if (remembered.size >= REMEMBERED_PATHS) remembered.clear();
    remembered.set(raw, answer);
    return answer;
  };
}

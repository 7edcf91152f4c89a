/**
 * Finds the file paths a prompt mentions, strictly: repo-relative paths with a code extension that
 * exist as files under the repository root. URLs, absolute paths (`/x`, `~/x`, `C:\x`), paths with
 * `..`, directories and files that do not exist are ignored, so prose ("e.g.", "v1.2") never triggers
 * a briefing.
 */
import { statSync } from "node:fs";
import { join } from "node:path";

/** Extensions that count as code files. */
export const CODE_EXTENSIONS: ReadonlySet<string> = new Set(["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "json", "vue", "svelte"]);

const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
/** A path-like token: segments of word characters, dots, @ and dashes, ending in `.ext`. */
const TOKEN_RE = /(^|[\s`'"([{<,;:=])((?:[~/\\]|[A-Za-z]:[\\/])?[\w@.+-]+(?:[\\/][\w@.+-]+)*\.([A-Za-z0-9]{1,6}))(?=$|[\s`'")\]}>,;:!?]|\.(?:\s|$))/g;

/** Candidate tokens in order of appearance, before the file-system check. */
export function pathTokens(prompt: string): string[] {
  const text = prompt.replace(URL_RE, " ");
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    const token = m[2]!;
    const ext = m[3]!.toLowerCase();
    if (!CODE_EXTENSIONS.has(ext)) continue;
    if (/^[~/\\]|^[A-Za-z]:[\\/]/.test(token)) continue; // absolute or home-relative
    const normal = token.replace(/\\/g, "/").replace(/^\.\//, "");
    if (normal.split("/").some((seg) => seg === ".." || seg === "")) continue;
    out.push(normal);
  }
  return out;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Unique mentioned paths that are files under `root`, in order of appearance. */
export function mentionedFiles(prompt: string, root: string): string[] {
  const seen = new Set<string>();
  for (const token of pathTokens(prompt)) {
    if (!seen.has(token) && isFile(join(root, token))) seen.add(token);
  }
  return [...seen];
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Every file under `dir` (recursively), as one text of its bytes decoded latin1 (SQLite pages
 * included), for "no secret was written anywhere" checks. Empty when `dir` does not exist.
 */
export function everyFileUnder(dir: string): string {
  if (!existsSync(dir)) return "";
  let out = "";
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const parent = (e as unknown as { parentPath?: string; path?: string }).parentPath ?? (e as unknown as { path: string }).path;
    if (e.isFile()) out += readFileSync(join(parent, e.name), "latin1");
  }
  return out;
}

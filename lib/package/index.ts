/**
 * pi-governor's own package folder and version. Found by walking up from this file to the
 * package.json named "pi-governor", so the sources (lib/package/) and the compiled build
 * (dist/lib/package/) give the same answer.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "pi-governor";

function readManifest(dir: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

let found: { dir: string; version: string } | undefined;

function locate(): { dir: string; version: string } {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = readManifest(dir);
    if (manifest?.name === PACKAGE_NAME) return (found = { dir, version: typeof manifest.version === "string" ? manifest.version : "0.0.0" });
    const parent = dirname(dir);
    // Not found (a bundled copy): the folder two levels up, where the sources keep package.json.
    if (parent === dir) return (found = { dir: join(dirname(fileURLToPath(import.meta.url)), "..", ".."), version: "0.0.0" });
    dir = parent;
  }
}

/** The package folder (holds package.json; pi may be installed beside it). */
export function packageRoot(): string {
  return locate().dir;
}

/** The package's version from its package.json, "0.0.0" when it cannot be read. */
export function packageVersion(): string {
  return locate().version;
}

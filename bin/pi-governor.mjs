#!/usr/bin/env node
// Runs the TypeScript CLI directly (jiti), the same way pi loads this package's extensions.
// `typebox` maps to a stand-in (cli/typebox-json.ts): pi hands typebox to extensions, not to a
// shell command, and a runtime-only install (`npm ci --omit=dev`) has none.
import { lstatSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * Where jiti keeps the compiled sources: a folder only this user can write, `<XDG_CACHE_HOME or
 * ~/.cache>/pi-governor/jiti` (mode 0700). jiti's default is `<tmpdir>/jiti`, shared by every user
 * of the machine: an entry planted there under the name jiti computes (path and source hash, both
 * known to anyone with the package) would run as this user. false (compile on every start, about
 * 3 s) when one of the two levels made here is a link, another user's or writable by others, or
 * the cache folder is another user's or writable by everyone.
 */
function privateCompileCache() {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  const dir = join(base, "pi-governor", "jiti");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    const ours = (s, writableBy) => s.isDirectory() && (uid === undefined || s.uid === uid) && (s.mode & writableBy) === 0;
    // The cache folder may be a link (to another disk) and group-writable (a user's private group,
    // umask 002); the two levels made here must be real directories that only the user can write.
    return ours(statSync(base), 0o002) && ours(lstatSync(dirname(dir)), 0o022) && ours(lstatSync(dir), 0o022) ? dir : false;
  } catch {
    return false;
  }
}

let createJiti;
try {
  ({ createJiti } = await import("jiti"));
} catch (error) {
  // The one dependency cli/main.ts cannot name itself (see missingModuleMessage there).
  process.stderr.write(
    `pi-governor: the module "jiti" is not installed (${String(error?.message ?? error).split("\n", 1)[0]}). Fix: run \`npm ci --omit=dev\` in ${packageDir} (pi-governor's runtime dependencies), or reinstall the package.\n`,
  );
  // 3: the command could not run (as for a store it cannot read); 2 is kept for a wrong argument.
  process.exit(3);
}
const jiti = createJiti(import.meta.url, {
  fsCache: privateCompileCache(),
  alias: { typebox: fileURLToPath(new URL("../cli/typebox-json.ts", import.meta.url)) },
});
const { main } = await jiti.import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));

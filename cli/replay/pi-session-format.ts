/**
 * pi's own session-format code, when pi is installed (either npm scope): replay reads sessions the
 * way pi does, older versions included, instead of only the current format. Loaded from pi's
 * package folder (dist/core/session-manager.js), so pi is never a dependency of pi-governor.
 *
 * Importing runs code, so only a pi the user installed is loaded: one installed with this package
 * (its own node_modules, or beside it in the node_modules holding it, as npm installs globally or in
 * a tools folder) or the `pi` command on an absolute PATH entry. Never one found from the current
 * directory or an ancestor of the package, which a cloned repository may control (a planted
 * `node_modules/@mariozechner/pi-coding-agent` would run as the user).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../lib/package/index.ts";
import { findPi, type PiInstall } from "../../lib/pi/index.ts";
import type { SessionMigration } from "./session-file.ts";

/** pi's migration and where it came from. */
export interface PiSessionFormat {
  migrate: SessionMigration;
  pi: PiInstall;
}

const PACKAGE_ROOT = packageRoot();

/**
 * pi's `migrateSessionEntries` from the installed pi (beside this package, or the `pi` on PATH's
 * absolute entries), or undefined when no pi is found or its module does not load (replay then reads
 * the current format itself). `packageDir` is where this package is installed (tests plant one).
 */
export async function loadPiSessionFormat(
  pathVar: string | undefined = process.env.PATH,
  packageDir: string = PACKAGE_ROOT,
): Promise<PiSessionFormat | undefined> {
  const pi = findPi({ besidePackage: packageDir, ...(pathVar ? { pathVar } : {}) });
  if (!pi) return undefined;
  const file = join(pi.dir, "dist", "core", "session-manager.js");
  if (!existsSync(file)) return undefined;
  try {
    const mod = (await import(pathToFileURL(file).href)) as { migrateSessionEntries?: unknown };
    if (typeof mod.migrateSessionEntries !== "function") return undefined;
    return { migrate: mod.migrateSessionEntries as SessionMigration, pi };
  } catch {
    return undefined;
  }
}

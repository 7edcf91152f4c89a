/**
 * pi's own session-format code, when pi is installed (either npm scope): replay reads sessions the
 * way pi does, older versions included, instead of only the current format. Loaded from pi's
 * package folder (dist/core/session-manager.js), so pi is never a dependency of pi-governor.
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
 * pi's `migrateSessionEntries` from the installed pi (next to this package, the cwd, or the `pi` on
 * PATH), or undefined when no pi is found or its module does not load (replay then reads the current
 * format itself).
 */
export async function loadPiSessionFormat(cwd: string = process.cwd(), pathVar: string | undefined = process.env.PATH): Promise<PiSessionFormat | undefined> {
  const pi = findPi({ from: [PACKAGE_ROOT, cwd], ...(pathVar ? { pathVar } : {}) });
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

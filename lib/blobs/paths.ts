import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";

/** Default blob directory, before `~` is resolved. */
export const DEFAULT_BLOB_DIR = "~/.pi/cache/pi-governor/blobs";

/**
 * Resolves a configured blob directory: a leading `~` becomes `home` (default: the OS home
 * directory), a relative path is taken from `cwd`. The result is absolute and normalized.
 *
 * The default ({@link DEFAULT_BLOB_DIR}) follows pi's agent directory like the config file and the
 * execution log do: with `agentDir` set to anything but `~/.pi/agent` (`PI_CODING_AGENT_DIR`), it
 * becomes `<agentDir>/cache/pi-governor/blobs`, so a separate pi setup (a test, a second profile)
 * never shares or sweeps the everyday cache. An explicit `blobs.dir` is used as written.
 */
export function resolveBlobDir(dir: string, options: { home?: string; cwd?: string; agentDir?: string } = {}): string {
  const home = options.home ?? homedir();
  if (dir === DEFAULT_BLOB_DIR) return join(cacheRoot(options), "blobs");
  let expanded = dir;
  if (dir === "~") expanded = home;
  else if (dir.startsWith("~/")) expanded = join(home, dir.slice(2));
  return resolve(options.cwd ?? process.cwd(), expanded);
}

/**
 * The folder of pi-governor's caches (blobs, recall's index): `~/.pi/cache/pi-governor`, or
 * `<agentDir>/cache/pi-governor` when `agentDir` (`PI_CODING_AGENT_DIR`) names anything but
 * `~/.pi/agent`, so a second pi profile shares no cache with the everyday one.
 */
export function cacheRoot(options: { home?: string; agentDir?: string } = {}): string {
  const home = options.home ?? homedir();
  if (options.agentDir && resolve(options.agentDir) !== join(home, ".pi", "agent")) return join(resolve(options.agentDir), "cache", "pi-governor");
  return join(home, ".pi", "cache", "pi-governor");
}

/** True when `path` (absolute, or relative to `cwd`) lies inside `dir` or is `dir` itself. */
export function isInsideDir(dir: string, path: string, cwd: string = process.cwd()): boolean {
  const rel = relative(dir, resolve(cwd, path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

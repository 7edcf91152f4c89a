/**
 * Two git facts: the repository root (what KotaDB indexes) and HEAD (to tell when an index is stale,
 * and to key caches by commit). Run with execFile and an argument array (never a shell) and a short timeout;
 * any failure answers undefined, so a directory that is not a git repo still works. Only queries git
 * answers without running a program the repository's `.git/config` names (`core.fsmonitor` runs for
 * commands that read the index, such as `git status`).
 */
import { execFile } from "node:child_process";
import { absoluteSearchPath } from "../search-path/index.ts";

/** Longest a git query may take, in milliseconds. */
const GIT_TIMEOUT_MS = 3_000;

/**
 * Runs git in `cwd` (a repository). git is looked up on PATH's absolute entries only: a relative
 * entry would be resolved inside the repository, which could plant its own `git` there.
 */
function git(cwd: string, args: string[]): Promise<string | undefined> {
  const env = { ...process.env, PATH: absoluteSearchPath(process.env.PATH) };
  return new Promise((resolve) => {
    execFile("git", args, { cwd, env, timeout: GIT_TIMEOUT_MS, windowsHide: true }, (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
}

/** `git rev-parse --show-toplevel` from `cwd`, or undefined outside a repository. */
export function gitRoot(cwd: string): Promise<string | undefined> {
  return git(cwd, ["rev-parse", "--show-toplevel"]);
}

/** The commit HEAD points at, or undefined (no git, no commits). */
export function gitHead(root: string): Promise<string | undefined> {
  return git(root, ["rev-parse", "HEAD"]);
}

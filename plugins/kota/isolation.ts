/**
 * Where KotaDB runs and keeps its database, so that nothing the repository ships runs in the KotaDB
 * process: started in the repository, `bun` would read its `bunfig.toml` preload and `bun x` its
 * `node_modules/.bin`. See {@link neutralCwd} and {@link kotaDataDir}.
 */
import { createHash } from "node:crypto";
import { join, parse } from "node:path";

/**
 * The folder (under `agentDir`) holding KotaDB's database for the repository at `root`. KotaDB
 * finds its database by walking up from its cwd to a `.git`; from {@link neutralCwd} it finds none,
 * so the path is given explicitly, and the repository is not written at all (no `.kotadb/`, no
 * `.gitignore` edit): a planted `.kotadb` link in it cannot redirect KotaDB's writes.
 */
export function kotaDataDir(agentDir: string, root: string): string {
  const id = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(agentDir, "pi-governor", "kota", id);
}

/**
 * KotaDB's cwd when `kota.cwd` is empty: the filesystem root of `root` (`/`, or `C:\` on Windows),
 * owned by the system, never by a repository. KotaDB's "localPath must be within workspace" check
 * compares against its cwd, and every path lies within the filesystem root, while pi-governor itself
 * only ever indexes inside the repository.
 */
export function neutralCwd(root: string): string {
  return parse(root).root;
}

/** Environment that places KotaDB's database (and export folder) in {@link kotaDataDir}. */
export function kotaDataEnv(agentDir: string, root: string): Record<string, string> {
  const dir = kotaDataDir(agentDir, root);
  return { KOTADB_PATH: join(dir, "kota.db"), KOTADB_EXPORT_PATH: join(dir, "export") };
}

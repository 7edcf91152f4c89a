/**
 * Where KotaDB runs and where it keeps its database, so that nothing the repository ships runs in
 * the KotaDB process.
 *
 * Started with the repository as cwd, `bun` reads the repository's `bunfig.toml` (whose `preload`
 * runs any script before KotaDB) and `bun x` prefers the repository's `node_modules/.bin` (an
 * untagged `bun x kotadb` runs a planted `node_modules/.bin/kotadb`). So KotaDB starts in the
 * filesystem root of the repository's volume instead (owned by the system, never by a repository):
 * KotaDB's "localPath must be within workspace" check compares against its cwd, and every path lies
 * within the filesystem root, while pi-governor itself only ever indexes inside the repository.
 *
 * KotaDB finds its database by walking up from its cwd to a `.git`; from the filesystem root it
 * finds none, so the database path is given explicitly (`KOTADB_PATH`, plus `KOTADB_EXPORT_PATH`
 * for its JSONL export) in a private per-repository folder under the agent dir. The repository is
 * then not written at all (no `.kotadb/`, no `.gitignore` edit), and a planted `.kotadb` link in it
 * cannot redirect KotaDB's writes.
 */
import { createHash } from "node:crypto";
import { join, parse } from "node:path";

/** The folder (under `agentDir`) holding KotaDB's database for the repository at `root`. */
export function kotaDataDir(agentDir: string, root: string): string {
  const id = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(agentDir, "pi-governor", "kota", id);
}

/** KotaDB's cwd when `kota.cwd` is empty: the filesystem root of `root` (`/`, or `C:\` on Windows). */
export function neutralCwd(root: string): string {
  return parse(root).root;
}

/** Environment that places KotaDB's database (and export folder) in {@link kotaDataDir}. */
export function kotaDataEnv(agentDir: string, root: string): Record<string, string> {
  const dir = kotaDataDir(agentDir, root);
  return { KOTADB_PATH: join(dir, "kota.db"), KOTADB_EXPORT_PATH: join(dir, "export") };
}

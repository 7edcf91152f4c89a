/**
 * What pi-governor keeps in a user's pi folders, listed with size and modification time, so a test
 * run can prove it left them alone: `<agentDir>/pi-governor*` (config, execution log) and
 * `<home>/.pi/cache/pi-governor` (blobs, recall index). Links are listed, never followed.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Path -> "kind size mtime" of every entry under the watched places. */
export type PiDataSnapshot = Map<string, string>;

/** The places pi-governor writes by default for a home and agent dir. */
export function piDataRoots(home: string, agentDir: string = join(home, ".pi", "agent")): string[] {
  const roots = [join(home, ".pi", "cache", "pi-governor"), join(agentDir, "cache", "pi-governor")];
  for (const name of safeList(agentDir)) if (name.startsWith("pi-governor")) roots.push(join(agentDir, name));
  return [...new Set(roots)];
}

/** Lists every entry under `roots` (each root itself included when it exists). */
export function snapshotPiData(roots: readonly string[]): PiDataSnapshot {
  const snapshot: PiDataSnapshot = new Map();
  const visit = (path: string): void => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    const kind = stat.isDirectory() ? "dir" : stat.isSymbolicLink() ? "link" : stat.isFile() ? "file" : "other";
    snapshot.set(path, `${kind} ${stat.size} ${stat.mtimeMs}`);
    if (kind === "dir") for (const name of safeList(path)) visit(join(path, name));
  };
  for (const root of roots) visit(root);
  return snapshot;
}

/** The paths created, removed or modified between two snapshots, sorted, each with what happened. */
export function changedPiData(before: PiDataSnapshot, after: PiDataSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, entry] of after) {
    const was = before.get(path);
    if (was === undefined) changes.push(`created  ${path}`);
    else if (was !== entry) changes.push(`modified ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed  ${path}`);
  return changes.sort((a, b) => a.slice(9).localeCompare(b.slice(9)));
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

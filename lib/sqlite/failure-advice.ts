/**
 * What to tell the user when a database pi-governor keeps (the execution log, the recall index)
 * fails for good: what is wrong in words (full disk, corrupt file), where, and the concrete fix:
 * which directory, how much space it has, which config key moves the file, the command that sets a
 * corrupt file aside. "disk I/O error" alone said none of this.
 */
import { existsSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { isSqliteUnavailable, sqliteErrorCode } from "./errors.ts";

/** Where the database lives and how it is configured, for the advice. */
export interface DatabaseWhere {
  /** The database file. */
  path: string;
  /** The config key that moves it, e.g. `recall.dbPath`. */
  configKey: string;
  /** What a new file means, e.g. "a new, empty index is created at the next start". */
  rebuilt: string;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Free space on the file system holding `dir`, or undefined when it cannot be read. */
function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

function sizeOf(path: string): number {
  let total = 0;
  for (const p of [path, `${path}-wal`]) {
    try {
      total += statSync(p).size;
    } catch {
      // missing: nothing to count
    }
  }
  return total;
}

/** The failure in words and its fix, one or two sentences (no trailing period). */
export function sqliteFailureAdvice(error: unknown, where: DatabaseWhere): string {
  // Not this file's fault: no driver loads in this Node. Its own fix, nothing about the folder.
  if (isSqliteUnavailable(error)) return `${error.why}. Fix: ${error.fix}`;
  const code = sqliteErrorCode(error) ?? (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const dir = dirname(where.path);
  const aside = `mv ${JSON.stringify(where.path)} ${JSON.stringify(`${where.path}.corrupt`)} (and its -wal and -shm files)`;
  if (code === "SQLITE_FULL" || code === "ENOSPC") {
    const free = freeBytes(dir);
    return `the disk holding ${dir} is full (${free === undefined ? "free space unknown" : `${mib(free)} free`}; the database is ${mib(sizeOf(where.path))}). Free space in that file system, or set ${where.configKey} to a file on a disk with room`;
  }
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") {
    return `the file is corrupt or not a SQLite database (${message}). Set it aside: ${aside}; ${where.rebuilt}`;
  }
  if (code === "SQLITE_IOERR") {
    const exists = existsSync(where.path);
    return `SQLite could not read or write it (${message}): the file or its -wal/-shm companions are likely corrupt${exists ? "" : " or missing"}, or the disk is failing. Set it aside: ${aside}; ${where.rebuilt}. If it happens again, check the disk holding ${dir}`;
  }
  if (code === "SQLITE_READONLY" || code === "EACCES" || code === "EPERM") {
    return `it cannot be written (${message}). Make ${dir} and the file writable by you, or set ${where.configKey} to another file`;
  }
  return `${message}. Check ${dir} and the file, or set ${where.configKey} to another file`;
}

/**
 * Opening a database through the storage interface: driver choice, a private file, the busy timeout,
 * and the capability probe. The built-in node:sqlite is used where the running Node has it, and
 * better-sqlite3 only where it does not, so a native module built for another Node ABI (pi on Node 24
 * with a better-sqlite3 built for Node 20) no longer turns storage off.
 */
import { closeSync, constants, existsSync, fchmodSync, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { loadBetterSqlite3Driver } from "./drivers/better-sqlite3.ts";
import type { SqliteDriver } from "./drivers/driver.ts";
import { loadNodeSqliteDriver } from "./drivers/node-sqlite.ts";
import { NODE_SQLITE_MIN_VERSION, SqliteUnavailableError } from "./errors.ts";
import type { OpenOptions, SqliteDatabase, SqliteDriverName, SqliteProbe } from "./types.ts";

/** Environment variable forcing a driver: `node`, `better-sqlite3` or `auto` (the default). */
export const SQLITE_DRIVER_ENV = "PI_GOVERNOR_SQLITE_DRIVER";

const LOADERS: Record<SqliteDriverName, () => SqliteDriver> = {
  node: loadNodeSqliteDriver,
  "better-sqlite3": loadBetterSqlite3Driver,
};

/** The driver choice in effect: the option, else {@link SQLITE_DRIVER_ENV}, else "auto". Throws on an unknown name. */
export function driverChoice(option?: SqliteDriverName | "auto", env: NodeJS.ProcessEnv = process.env): SqliteDriverName | "auto" {
  const choice = option ?? (env[SQLITE_DRIVER_ENV]?.trim() || "auto");
  if (choice === "auto" || choice === "node" || choice === "better-sqlite3") return choice;
  throw new SqliteUnavailableError(
    `${SQLITE_DRIVER_ENV}="${choice}" is not a SQLite driver`,
    "set it to node, better-sqlite3 or auto (or unset it)",
    undefined,
  );
}

/**
 * Loads the driver to use. "auto": node:sqlite, else better-sqlite3. Throws {@link SqliteUnavailableError}
 * naming the driver(s) that failed and the fix.
 */
export function loadDriver(option?: SqliteDriverName | "auto", env: NodeJS.ProcessEnv = process.env): SqliteDriver {
  const choice = driverChoice(option, env);
  if (choice !== "auto") return LOADERS[choice]();
  try {
    return loadNodeSqliteDriver();
  } catch (nodeError) {
    try {
      return loadBetterSqlite3Driver();
    } catch (betterError) {
      const node = nodeError as SqliteUnavailableError;
      const better = betterError as SqliteUnavailableError;
      throw new SqliteUnavailableError(
        `no SQLite driver loads on Node ${process.versions.node}: ${node.short}, and ${better.short}`,
        `run pi on Node >= ${NODE_SQLITE_MIN_VERSION}, or ${better.fix}`,
        undefined,
        { cause: betterError, nativeFix: better.fix },
      );
    }
  }
}

/**
 * Why no SQLite driver loads in this process (the driver choice of {@link loadDriver}), or undefined
 * when one does. Cached like the drivers: cheap to ask again.
 */
export function sqliteUnavailable(env: NodeJS.ProcessEnv = process.env): SqliteUnavailableError | undefined {
  try {
    loadDriver(undefined, env);
    return undefined;
  } catch (error) {
    if (error instanceof SqliteUnavailableError) return error;
    throw error;
  }
}

/**
 * Opens `path` (":memory:" allowed). When writing, the directory is created with mode 0700 and the
 * file with 0600 before SQLite sees it (SQLite gives its -wal/-shm files the database file's mode),
 * and a symbolic link at the file or its -wal/-shm/-journal names is refused rather than followed.
 * Sets `PRAGMA busy_timeout` ({@link OpenOptions.busyTimeoutMs}, default 0). Throws the driver's
 * error or {@link SqliteUnavailableError}.
 */
export function openDatabase(path: string, options: OpenOptions = {}): SqliteDatabase {
  const driver = loadDriver(options.driver);
  const readonly = options.readonly ?? false;
  if (path !== ":memory:" && !readonly) preparePrivateFile(path);
  const db = driver.open(path, { readonly });
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 0))}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Creates the directory (0700) and an empty private file (0600) without following links. Throws a clear Error. */
export function preparePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (const name of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    let isLink = false;
    try {
      isLink = lstatSync(name).isSymbolicLink();
    } catch {
      continue; // absent: fine
    }
    if (isLink)
      throw new Error(`${name} is a symbolic link; pi-governor does not follow links for its database files. Remove the link or choose another path.`);
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (!lstatSync(path).isFile()) throw new Error(`${path} exists but is not a regular file. Remove it or choose another path.`);
    return;
  }
  try {
    fchmodSync(fd, 0o600); // the umask may have narrowed it further, never widened; make it exact
  } finally {
    closeSync(fd);
  }
}

/**
 * What SQLite can do here: the driver {@link openDatabase} would pick (honouring the option and
 * {@link SQLITE_DRIVER_ENV}), its SQLite version, FTS5 and the trigram tokenizer, and why each driver
 * that does not load failed. Never throws.
 */
export function probeSqlite(options: { driver?: SqliteDriverName | "auto"; env?: NodeJS.ProcessEnv } = {}): SqliteProbe {
  const unavailable: SqliteProbe["unavailable"] = {};
  for (const name of Object.keys(LOADERS) as SqliteDriverName[]) {
    try {
      LOADERS[name]();
    } catch (error) {
      unavailable[name] = (error as Error).message;
    }
  }
  let driver: SqliteDriver;
  try {
    driver = loadDriver(options.driver, options.env ?? process.env);
  } catch {
    return { driver: undefined, sqliteVersion: undefined, fts5: false, trigram: false, unavailable };
  }
  const db = driver.open(":memory:", { readonly: false });
  const creates = (sql: string) => {
    try {
      db.exec(sql);
      return true;
    } catch {
      return false;
    }
  };
  try {
    const fts5 = creates("CREATE VIRTUAL TABLE temp.probe_fts5 USING fts5(body)");
    const trigram = fts5 && creates("CREATE VIRTUAL TABLE temp.probe_trigram USING fts5(body, tokenize = 'trigram')");
    return { driver: driver.name, sqliteVersion: driver.sqliteVersion, fts5, trigram, unavailable };
  } finally {
    db.close();
  }
}

/**
 * Removes the `-wal` and `-shm` files a read-only connection left beside a WAL database (a reader
 * cannot checkpoint or delete them, so `pi-governor search` and `stats` left them behind): opens the
 * database for writing and closes it at once, which, when no other connection is open, checkpoints
 * the log and deletes both files. With pi still connected nothing changes (pi removes them when it
 * closes). Never throws; call it after the reader is closed.
 */
export function tidyAfterReading(path: string, options: { busyTimeoutMs?: number } = {}): void {
  if (!existsSync(`${path}-wal`) && !existsSync(`${path}-shm`)) return;
  try {
    const db = openDatabase(path, { busyTimeoutMs: options.busyTimeoutMs ?? 100 });
    try {
      // SQLite reads the file only at the first statement; without one, close() has nothing to tidy.
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
  } catch {
    // Locked, read-only or gone: the files stay, which is what a reader left before.
  }
}

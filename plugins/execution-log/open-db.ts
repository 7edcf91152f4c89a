/**
 * Opens the execution-log database through lib/sqlite (node:sqlite where this Node has it, else
 * better-sqlite3, both loaded lazily): private file (mode 0600, directory 0700, links refused), WAL
 * so `pi-governor stats` can read while pi writes, migrated.
 */
import { openDatabase, type SqliteDatabase } from "../../lib/sqlite/index.ts";
import { migrate } from "./schema.ts";

/**
 * SQLite's busy wait for the writer, in ms. The wait is synchronous (it blocks pi's event loop), so it
 * only absorbs another writer's millisecond-long commit; a longer lock fails with SQLITE_BUSY and the
 * writer retries later from a timer, keeping its rows.
 */
export const WRITER_BUSY_TIMEOUT_MS = 5;

/** The stats CLI may wait longer for a lock: nothing else runs on its thread. */
export const READER_BUSY_TIMEOUT_MS = 2_000;

/**
 * Opens (creating if needed) and migrates the log at `path` for writing. Throws when it cannot:
 * a lock (isTransientSqliteError) or a real failure (unloadable driver, unwritable path, not a database).
 */
export function openLogForWriting(path: string): SqliteDatabase {
  const db = openDatabase(path, { busyTimeoutMs: WRITER_BUSY_TIMEOUT_MS });
  try {
    if (db.pragma("journal_mode") !== "wal") db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Opens an existing log read-only (the stats CLI). Throws when it cannot. */
export function openLogForReading(path: string): SqliteDatabase {
  return openDatabase(path, { readonly: true, busyTimeoutMs: READER_BUSY_TIMEOUT_MS });
}

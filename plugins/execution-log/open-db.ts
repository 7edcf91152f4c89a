/**
 * Opens the execution-log database: private file (mode 0600, directory 0700), WAL so `pi-governor
 * stats` can read while pi writes, migrated. better-sqlite3 is a native module and loaded only here,
 * so a missing or broken build degrades the log instead of breaking the plugin's import.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { migrate } from "./schema.ts";

type DatabaseConstructor = typeof BetterSqlite3;

let loaded: DatabaseConstructor | undefined;

/** The better-sqlite3 constructor, loaded on first use (throws if the native module cannot load). */
export function sqlite(): DatabaseConstructor {
  loaded ??= createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor;
  return loaded;
}

/** Opens (creating if needed) and migrates the log at `path` for writing. Throws when it cannot. */
export function openLogForWriting(path: string): BetterSqlite3.Database {
  const Database = sqlite();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) {
    // Create the file ourselves so it is private from the first byte; SQLite gives its journal
    // and WAL files the same mode as the database file.
    closeSync(openSync(path, "a", 0o600));
    chmodSync(path, 0o600);
  }
  const db = new Database(path, { timeout: 2_000 });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Opens an existing log read-only (the stats CLI). Throws when it cannot. */
export function openLogForReading(path: string): BetterSqlite3.Database {
  const Database = sqlite();
  return new Database(path, { readonly: true, fileMustExist: true, timeout: 2_000 });
}

/**
 * The better-sqlite3 adapter. The native module is loaded on first use with createRequire, so a
 * missing module or one built for another Node ABI ("NODE_MODULE_VERSION 115 ... requires 137") is a
 * {@link SqliteUnavailableError} with the fix, never a crash at import time.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { SqliteUnavailableError } from "../errors.ts";
import type { SqlParams, SqlValue, SqliteDatabase, SqliteStatement, TransactionMode } from "../types.ts";
import { firstValue, TransactionRunner, type SqliteDriver } from "./driver.ts";

type Constructor = typeof BetterSqlite3;

let cached: { driver: SqliteDriver } | { error: SqliteUnavailableError } | undefined;

/** Loads better-sqlite3 once (the result, good or bad, is cached). Throws {@link SqliteUnavailableError}. */
export function loadBetterSqlite3Driver(): SqliteDriver {
  cached ??= tryLoad();
  if ("error" in cached) throw cached.error;
  return cached.driver;
}

function tryLoad(): { driver: SqliteDriver } | { error: SqliteUnavailableError } {
  let Database: Constructor;
  let version: string;
  try {
    Database = createRequire(import.meta.url)("better-sqlite3") as Constructor;
    // The native binding is loaded lazily by the first constructor call: open one to surface ABI errors here.
    const probe = new Database(":memory:");
    version = String(firstValue(probe.prepare("SELECT sqlite_version() AS v").get() as Record<string, SqlValue>));
    probe.close();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n").slice(0, 4).join(" ") : String(error);
    const missing = (error as { code?: string }).code === "MODULE_NOT_FOUND";
    const fix = missing ? "install it (npm install better-sqlite3)" : "rebuild it for this Node (npm rebuild better-sqlite3 in the pi-governor package folder)";
    return {
      error: new SqliteUnavailableError(
        `SQLite driver better-sqlite3 cannot load on Node ${process.versions.node}: ${reason}. Fix: ${fix}, or run pi on Node >= 22.13, whose built-in node:sqlite needs no native module.`,
        "better-sqlite3",
        { cause: error },
      ),
    };
  }
  return {
    driver: {
      name: "better-sqlite3",
      sqliteVersion: version,
      open: (path, options) => wrap(new Database(path, options.readonly ? { readonly: true, fileMustExist: true } : {}), path),
    },
  };
}

function wrap(db: BetterSqlite3.Database, path: string): SqliteDatabase {
  const tx = new TransactionRunner();
  return {
    driver: "better-sqlite3",
    path,
    get isOpen() {
      return db.open;
    },
    get inTransaction() {
      return tx.active;
    },
    exec: (sql) => void db.exec(sql),
    prepare<Row>(sql: string): SqliteStatement<Row> {
      const stmt = db.prepare(sql);
      const reader = stmt.reader;
      return {
        run: (...params: SqlParams) => {
          const r = stmt.run(...params);
          return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params: SqlParams) => (reader ? (stmt.get(...params) as Row | undefined) : (stmt.run(...params), undefined)),
        all: (...params: SqlParams) => (reader ? (stmt.all(...params) as Row[]) : (stmt.run(...params), [])),
        iterate: (...params: SqlParams) => stmt.iterate(...params) as IterableIterator<Row>,
      };
    },
    pragma: (text) => {
      const stmt = db.prepare(`PRAGMA ${text}`);
      if (!stmt.reader) return void stmt.run();
      return firstValue(stmt.get() as Record<string, SqlValue> | undefined);
    },
    transaction: <T>(fn: () => T, mode: TransactionMode = "immediate") => tx.run(db, fn, mode),
    close: () => {
      if (db.open) db.close();
    },
  };
}

/**
 * The better-sqlite3 adapter. The native module is loaded on first use with createRequire, so a
 * missing module or one built for another Node ABI ("NODE_MODULE_VERSION 115 ... requires 137") is a
 * {@link SqliteUnavailableError} with the fix, never a crash at import time.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { packageRoot } from "../../package/index.ts";
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
    return { error: unavailable(error) };
  }
  return {
    driver: {
      name: "better-sqlite3",
      sqliteVersion: version,
      open: (path, options) => wrap(new Database(path, options.readonly ? { readonly: true, fileMustExist: true } : {}), path),
    },
  };
}

/**
 * Why better-sqlite3 did not load, in a few words, and the fix: not installed (an optional dependency
 * whose build failed: no prebuilt binary for this platform and Node, and no C++ toolchain), built for
 * another Node (its NODE_MODULE_VERSION), or anything else.
 */
function unavailable(error: unknown): SqliteUnavailableError {
  const node = process.versions.node;
  const message = error instanceof Error ? error.message : String(error);
  const where = `in ${packageRoot()}`;
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  const [short, fix] =
    (error as { code?: string }).code === "MODULE_NOT_FOUND"
      ? [
          "better-sqlite3 is not installed",
          `install better-sqlite3 ${where}: npm install --no-save better-sqlite3 (where no prebuilt binary fits, that builds it from source with g++, make and python3)`,
        ]
      : abi
        ? [
            `better-sqlite3 is built for another Node (module version ${abi[1]}; this one needs ${abi[2]})`,
            `rebuild better-sqlite3 for this Node ${where}: npm rebuild better-sqlite3`,
          ]
        : [`better-sqlite3 does not load (${message.split("\n")[0]})`, `rebuild better-sqlite3 ${where}: npm rebuild better-sqlite3`];
  return new SqliteUnavailableError(`${short} (Node ${node})`, fix, "better-sqlite3", { cause: error, short, nativeFix: fix });
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

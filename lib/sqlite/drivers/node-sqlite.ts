/**
 * The node:sqlite adapter (DatabaseSync: built into Node >= 22.13 without a flag, FTS5 and the trigram
 * tokenizer included). Loaded on first use; on an older Node the load fails with a
 * {@link SqliteUnavailableError} and the caller falls back to better-sqlite3.
 */
import { createRequire } from "node:module";
import { NODE_SQLITE_MIN_VERSION, SqliteUnavailableError } from "../errors.ts";
import type { SqlParams, SqlValue, SqliteDatabase, SqliteStatement, TransactionMode } from "../types.ts";
import { firstValue, TransactionRunner, type SqliteDriver } from "./driver.ts";

/** The slice of node:sqlite used here (declared locally: the project's @types/node targets Node 20, which lacks it). */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NodeDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
}
interface Module {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NodeDatabase;
}

let cached: { driver: SqliteDriver } | { error: SqliteUnavailableError } | undefined;

/** Loads node:sqlite once (the result is cached). Throws {@link SqliteUnavailableError}. */
export function loadNodeSqliteDriver(): SqliteDriver {
  cached ??= tryLoad();
  if ("error" in cached) throw cached.error;
  return cached.driver;
}

/**
 * Requires node:sqlite without its one-time ExperimentalWarning (printed on Node 22/23): a stray
 * stderr line would land in pi's terminal UI. Only that warning is dropped, only during the require.
 */
function requireQuietly(): Module {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === "ExperimentalWarning" && /sqlite/i.test(text)) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return createRequire(import.meta.url)("node:sqlite") as Module;
  } finally {
    process.emitWarning = emit;
  }
}

function tryLoad(): { driver: SqliteDriver } | { error: SqliteUnavailableError } {
  let mod: Module;
  let version: string;
  try {
    mod = requireQuietly();
    const probe = new mod.DatabaseSync(":memory:");
    version = String(firstValue(probe.prepare("SELECT sqlite_version() AS v").get() as Record<string, SqlValue>));
    probe.close();
  } catch (error) {
    const node = process.versions.node;
    const tooOld = olderThan(node, NODE_SQLITE_MIN_VERSION);
    const short = tooOld
      ? `node:sqlite needs Node >= ${NODE_SQLITE_MIN_VERSION}`
      : `node:sqlite does not load (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
    return {
      error: new SqliteUnavailableError(`${short} (this is Node ${node})`, `run pi on Node >= ${NODE_SQLITE_MIN_VERSION}, or use better-sqlite3`, "node", {
        cause: error,
        short,
      }),
    };
  }
  const { DatabaseSync } = mod;
  return {
    driver: {
      name: "node",
      sqliteVersion: version,
      open: (path, options) => wrap(new DatabaseSync(path, { readOnly: options.readonly }), path),
    },
  };
}

function wrap(db: NodeDatabase, path: string): SqliteDatabase {
  const tx = new TransactionRunner();
  let open = true;
  return {
    driver: "node",
    path,
    get isOpen() {
      return open;
    },
    get inTransaction() {
      return tx.active;
    },
    exec: (sql) => db.exec(sql),
    prepare<Row>(sql: string): SqliteStatement<Row> {
      const stmt = db.prepare(sql);
      return {
        run: (...params: SqlParams) => {
          const r = stmt.run(...params);
          return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params: SqlParams) => stmt.get(...params) as Row | undefined,
        all: (...params: SqlParams) => stmt.all(...params) as Row[],
        iterate: (...params: SqlParams) => stmt.iterate(...params) as IterableIterator<Row>,
      };
    },
    pragma: (text) => firstValue(db.prepare(`PRAGMA ${text}`).get() as Record<string, SqlValue> | undefined),
    transaction: <T>(fn: () => T, mode: TransactionMode = "immediate") => tx.run(db, fn, mode),
    close: () => {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}

/** True when Node version `version` ("20.20.2") is older than `min` ("22.13"). */
export function olderThan(version: string, min: string): boolean {
  const have = version.split(".").map(Number);
  const need = min.split(".").map(Number);
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    const n = need[i] ?? 0;
    if (h !== n) return h < n;
  }
  return false;
}

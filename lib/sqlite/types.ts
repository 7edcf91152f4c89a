/**
 * The storage interface every SQLite user in pi-governor goes through, whichever driver is underneath
 * (Node's built-in `node:sqlite` or the native better-sqlite3 module). Deliberately small: what the
 * execution log and a full-text (FTS5) recall index need, nothing driver-specific.
 */

/** The two drivers. `node` = `node:sqlite` (DatabaseSync, Node >= 22.13); `better-sqlite3` = the npm module. */
export type SqliteDriverName = "node" | "better-sqlite3";

/** A value SQLite can bind or return. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/**
 * Statement parameters: positional values (`?`) or ONE object of named values (`@name`, `:name`,
 * `$name`; keys without the prefix).
 */
export type SqlParams = SqlValue[] | [Record<string, SqlValue>];

/** What a write statement reports. */
export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. Rows are records keyed by column name (with the `node` driver they have a
 * null prototype: read them, spread them, JSON them, but do not call Object.prototype methods on them).
 */
export interface SqliteStatement<Row = Record<string, SqlValue>> {
  run(...params: SqlParams): RunResult;
  get(...params: SqlParams): Row | undefined;
  all(...params: SqlParams): Row[];
  /** Rows one at a time, for result sets too large to hold (finish or break the loop before the next write). */
  iterate(...params: SqlParams): IterableIterator<Row>;
}

/** How a transaction takes its locks (SQLite's BEGIN DEFERRED / IMMEDIATE / EXCLUSIVE). */
export type TransactionMode = "deferred" | "immediate" | "exclusive";

/** An open database. Every method is synchronous and throws the driver's error (see errors.ts to classify it). */
export interface SqliteDatabase {
  /** Which driver opened it. */
  readonly driver: SqliteDriverName;
  /** The file (or ":memory:"). */
  readonly path: string;
  /** False after close(). */
  readonly isOpen: boolean;
  /** True inside {@link transaction}. */
  readonly inTransaction: boolean;
  /** Runs one or more statements without results (DDL, BEGIN, a script). */
  exec(sql: string): void;
  prepare<Row = Record<string, SqlValue>>(sql: string): SqliteStatement<Row>;
  /**
   * Runs `PRAGMA <text>` and returns the first column of the first row (undefined when the pragma
   * returns nothing): `pragma("user_version")` -> 1, `pragma("journal_mode = WAL")` -> "wal".
   * For pragmas returning tables (table_info) use prepare("PRAGMA ...").all().
   */
  pragma(text: string): SqlValue | undefined;
  /**
   * Runs `fn` in a transaction (default mode "immediate": the write lock is taken at BEGIN, so a busy
   * database fails before any work). Commits when `fn` returns, rolls back when it throws, and uses a
   * SAVEPOINT when already inside a transaction. `fn` must be synchronous.
   */
  transaction<T>(fn: () => T, mode?: TransactionMode): T;
  /** Closes the database; a second close is a no-op. */
  close(): void;
}

/** How {@link openDatabase} opens a file. */
export interface OpenOptions {
  /** Open for reading only; the file must exist. Default false (create when missing, mode 0600). */
  readonly?: boolean;
  /**
   * How long SQLite waits for another connection's lock before failing with SQLITE_BUSY, in
   * milliseconds. SQLite waits SYNCHRONOUSLY, blocking the event loop for that long: keep it 0 or a
   * few ms on the agent's thread and retry later instead. Default 0.
   */
  busyTimeoutMs?: number;
  /** Force a driver; default: env PI_GOVERNOR_SQLITE_DRIVER, else "auto" (node:sqlite when the running Node has it). */
  driver?: SqliteDriverName | "auto";
}

/** What the running process can do with SQLite ({@link probeSqlite}). */
export interface SqliteProbe {
  /** The driver {@link openDatabase} would use, or undefined when none loads. */
  driver: SqliteDriverName | undefined;
  /** SQLite library version of that driver ("3.53.2"). */
  sqliteVersion: string | undefined;
  /** FTS5 full-text tables can be created. */
  fts5: boolean;
  /** FTS5's trigram tokenizer (substring search) is available. */
  trigram: boolean;
  /** Why each driver that did not load failed, with the fix. */
  unavailable: Partial<Record<SqliteDriverName, string>>;
}

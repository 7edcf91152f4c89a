/**
 * Driver-neutral reading of SQLite errors. better-sqlite3 throws `SqliteError` with `code`
 * "SQLITE_BUSY"; node:sqlite throws an Error with `code` "ERR_SQLITE_ERROR" and the numeric
 * `errcode` (5). Callers only ask: is this a lock that will clear (retry later), or not (give up)?
 */
import type { SqliteDriverName } from "./types.ts";

/** The lowest Node whose built-in node:sqlite loads without a flag (with FTS5 and the trigram tokenizer). */
export const NODE_SQLITE_MIN_VERSION = "22.13";

/**
 * No driver could be loaded (or the one forced could not). `why` says it in a few words ("node:sqlite
 * needs Node >= 22.13 (this is 20.20.2); better-sqlite3 is not installed"), `fix` what to do; the
 * message is both as one sentence each.
 */
export class SqliteUnavailableError extends Error {
  override readonly name = "SqliteUnavailableError";
  /** The driver that failed, or undefined when every driver was tried. */
  readonly driver: SqliteDriverName | undefined;
  /** Why, without the fix and without a final period. */
  readonly why: string;
  /** What to do, without a final period. */
  readonly fix: string;
  /** For one driver: the reason in a few words, to join with the other's ("better-sqlite3 is not installed"). */
  readonly short: string;
  /** How to make better-sqlite3 load (install or rebuild it, and where), when it was tried. */
  readonly nativeFix: string | undefined;
  constructor(why: string, fix: string, driver: SqliteDriverName | undefined, options?: { cause?: unknown; short?: string; nativeFix?: string }) {
    super(`${why}. Fix: ${fix}.`, options);
    this.why = why;
    this.fix = fix;
    this.short = options?.short ?? why;
    this.nativeFix = options?.nativeFix;
    this.driver = driver;
  }
}

/** True for {@link SqliteUnavailableError}, also across copies of this module (the CLI and pi load their own). */
export function isSqliteUnavailable(error: unknown): error is SqliteUnavailableError {
  return (
    error instanceof SqliteUnavailableError ||
    (error instanceof Error && error.name === "SqliteUnavailableError" && typeof (error as SqliteUnavailableError).why === "string")
  );
}

/** Primary result codes, as SQLite numbers them. */
const PRIMARY: Record<number, string> = {
  1: "SQLITE_ERROR",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  26: "SQLITE_NOTADB",
};

/**
 * The primary SQLite result code name of `error` ("SQLITE_BUSY" also for SQLITE_BUSY_SNAPSHOT), or
 * undefined when it is not a SQLite error.
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as { code?: unknown; errcode?: unknown };
  if (typeof e.errcode === "number") return PRIMARY[e.errcode & 0xff] ?? `SQLITE_${e.errcode & 0xff}`;
  if (typeof e.code === "string" && e.code.startsWith("SQLITE_")) {
    const primary = Object.values(PRIMARY).find((name) => e.code === name || (e.code as string).startsWith(`${name}_`));
    return primary ?? e.code;
  }
  return undefined;
}

/**
 * True for a lock held by another connection (SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL = a WAL
 * lock race): the same statement succeeds once the lock clears. Everything else (corrupt file, not a
 * database, read-only, cannot open, a missing table) does not heal by waiting.
 */
export function isTransientSqliteError(error: unknown): boolean {
  const code = sqliteErrorCode(error);
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || code === "SQLITE_PROTOCOL";
}

/**
 * For a shell command (`pi-governor stats`, `search`) that found no driver here and no other Node to
 * run on: the cause, and how to read the file anyway, without a final period.
 */
export function noSqliteText(error: SqliteUnavailableError): string {
  const native = error.nativeFix ? `, or ${error.nativeFix}` : "";
  return `${error.why}, and the \`pi\` command on PATH names no other Node to read it with. Fix: run pi-governor with the Node pi runs on (Node >= ${NODE_SQLITE_MIN_VERSION} has node:sqlite built in)${native}`;
}

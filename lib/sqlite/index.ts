/**
 * lib/sqlite: one small storage interface over two SQLite drivers (node:sqlite where the running Node
 * has it, better-sqlite3 otherwise), loaded lazily so a missing or broken native module never breaks
 * an import. See types.ts for the interface, open.ts for driver choice and file safety, errors.ts for
 * telling a passing lock from a real failure.
 */
export type { OpenOptions, RunResult, SqlParams, SqlValue, SqliteDatabase, SqliteDriverName, SqliteProbe, SqliteStatement, TransactionMode } from "./types.ts";
export { driverChoice, loadDriver, openDatabase, preparePrivateFile, probeSqlite, SQLITE_DRIVER_ENV, sqliteUnavailable, tidyAfterReading } from "./open.ts";
export { isSqliteUnavailable, isTransientSqliteError, NODE_SQLITE_MIN_VERSION, noSqliteText, sqliteErrorCode, SqliteUnavailableError } from "./errors.ts";
export { sqliteFailureAdvice, type DatabaseWhere } from "./failure-advice.ts";
export { olderThan as olderThanVersion } from "./drivers/node-sqlite.ts";

/**
 * What a driver adapter provides, and the parts both adapters share: the transaction wrapper (plain
 * BEGIN/COMMIT/ROLLBACK and SAVEPOINTs, identical on both drivers) and the PRAGMA reader.
 */
import type { SqlValue, SqliteDatabase, SqliteDriverName, TransactionMode } from "../types.ts";

/** A loaded driver: opens files as {@link SqliteDatabase}. */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /** SQLite library version ("3.53.2"). */
  readonly sqliteVersion: string;
  /** Opens `path` (":memory:" allowed). `readonly` opens an existing file without creating it. */
  open(path: string, options: { readonly: boolean }): SqliteDatabase;
}

/** The minimum a raw connection offers for the shared helpers. */
interface RawConnection {
  exec(sql: string): void;
}

/**
 * Transaction state of one connection: BEGIN at depth 0, SAVEPOINT deeper. Commit/rollback errors
 * propagate after the rollback, so a busy COMMIT never leaves the connection inside a transaction.
 */
export class TransactionRunner {
  private depth = 0;

  get active(): boolean {
    return this.depth > 0;
  }

  run<T>(raw: RawConnection, fn: () => T, mode: TransactionMode): T {
    const savepoint = this.depth > 0 ? `pi_governor_sp_${this.depth}` : undefined;
    raw.exec(savepoint ? `SAVEPOINT ${savepoint}` : `BEGIN ${mode.toUpperCase()}`);
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new TypeError("SqliteDatabase.transaction: fn must be synchronous (it returned a Promise)");
      raw.exec(savepoint ? `RELEASE ${savepoint}` : "COMMIT");
    } catch (error) {
      try {
        raw.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : "ROLLBACK");
      } catch {
        // SQLite already rolled back (some errors end the transaction themselves); the original error matters.
      }
      throw error;
    } finally {
      this.depth--;
    }
    return result;
  }
}

/** First column of the first row of `rows`, or undefined. */
export function firstValue(row: Record<string, SqlValue> | undefined): SqlValue | undefined {
  if (!row) return undefined;
  for (const key in row) return row[key];
  return undefined;
}

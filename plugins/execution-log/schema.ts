/**
 * The `tool_execution_log` table and its idempotent migration. The version lives in SQLite's
 * `PRAGMA user_version`, so running the migration twice (two pi processes, a reload) is harmless:
 * every statement is `IF NOT EXISTS`, and a table with only the base columns, created by another tool, gets the missing
 * columns added rather than being replaced.
 */
import type { SqliteDatabase } from "../../lib/sqlite/index.ts";

/** The schema version this code writes (2: `parent_task_id`). */
export const SCHEMA_VERSION = 2;

/** Table name, shared with other tools that log tool executions. */
export const TABLE = "tool_execution_log";

/** The base columns (id .. completed_at) plus session_id, error_category, retries, bytes_in, bytes_out, parent_task_id. */
export const CREATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  id INTEGER PRIMARY KEY,
  task_id TEXT,
  tool_name TEXT NOT NULL,
  phase TEXT,
  status TEXT NOT NULL,
  duration_ms INTEGER,
  started_at TEXT,
  completed_at TEXT,
  session_id TEXT,
  error_category TEXT,
  retries INTEGER NOT NULL DEFAULT 0,
  bytes_in INTEGER,
  bytes_out INTEGER,
  parent_task_id TEXT
)`;

/** Columns pi-governor adds to the base table, for tables created before them. */
const ADDED_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ["session_id", "TEXT"],
  ["error_category", "TEXT"],
  ["retries", "INTEGER NOT NULL DEFAULT 0"],
  ["bytes_in", "INTEGER"],
  ["bytes_out", "INTEGER"],
  ["parent_task_id", "TEXT"],
];

/** Brings `db` to {@link SCHEMA_VERSION}. Safe to run any number of times, concurrently too (one transaction). */
export function migrate(db: SqliteDatabase): void {
  const version = Number(db.pragma("user_version"));
  if (version >= SCHEMA_VERSION) return;
  db.transaction(() => {
    // Another process may have migrated between the check above and this transaction's lock.
    if (Number(db.pragma("user_version")) >= SCHEMA_VERSION) return;
    db.exec(CREATE_TABLE_SQL);
    const have = new Set(
      db
        .prepare<{ name: string }>(`PRAGMA table_info(${TABLE})`)
        .all()
        .map((c) => c.name),
    );
    for (const [name, type] of ADDED_COLUMNS) {
      if (!have.has(name)) db.exec(`ALTER TABLE ${TABLE} ADD COLUMN ${name} ${type}`);
    }
    db.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_tool_started ON ${TABLE} (tool_name, started_at)`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_started ON ${TABLE} (started_at)`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }, "immediate");
}

/** One row as the writer inserts it (column names as in SQL). */
export interface ExecutionRow {
  task_id: string | null;
  /** pi's id of the call that made this one (a codemode script), or null. */
  parent_task_id: string | null;
  tool_name: string;
  phase: string | null;
  status: string;
  duration_ms: number;
  started_at: string;
  completed_at: string;
  session_id: string | null;
  error_category: string | null;
  retries: number;
  bytes_in: number | null;
  bytes_out: number | null;
}

/** The insert statement's SQL, named parameters matching {@link ExecutionRow}. */
export const INSERT_SQL = `INSERT INTO ${TABLE}
  (task_id, parent_task_id, tool_name, phase, status, duration_ms, started_at, completed_at, session_id, error_category, retries, bytes_in, bytes_out)
  VALUES (@task_id, @parent_task_id, @tool_name, @phase, @status, @duration_ms, @started_at, @completed_at, @session_id, @error_category, @retries, @bytes_in, @bytes_out)`;

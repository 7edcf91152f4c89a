/**
 * lib/sqlite: the storage interface's cost over the raw driver it wraps (same driver, same statement,
 * same run), and what one write attempt against a locked file holds the event loop for.
 * Targets: the interface adds at most 20% to a 500-row insert transaction; a busy attempt with the
 * execution log's 5 ms busy timeout stays under 1/100 of the 2,000 ms the old writer waited.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { WRITER_BUSY_TIMEOUT_MS } from "../../plugins/execution-log/open-db.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";

const ROWS = 500;
const OLD_BUSY_WAIT_MS = 2_000;

interface RawDb {
  exec(sql: string): void;
  prepare(sql: string): { run(...params: unknown[]): unknown };
  close(): void;
}

function openRaw(driver: string): RawDb {
  if (driver === "node") {
    const mod = process.getBuiltinModule?.("node:sqlite") as { DatabaseSync: new (path: string) => RawDb } | undefined;
    return new mod!.DatabaseSync(":memory:");
  }
  const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => RawDb;
  return new Database(":memory:");
}

const suite: BenchSuite = async (report) => {
  const driver = probeSqlite().driver;
  if (!driver) {
    report({ name: "no SQLite driver loads", value: "skipped" });
    return;
  }
  const schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, at TEXT)";
  const row = { name: "kota_search", n: 42, at: "2026-11-20T10:00:00.000Z" };

  const raw = openRaw(driver);
  raw.exec(schema);
  const rawInsert = raw.prepare("INSERT INTO t (name, n, at) VALUES (@name, @n, @at)");
  const rawNs = await nsPerCall(
    () => {
      raw.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < ROWS; i++) rawInsert.run(row);
      raw.exec("COMMIT");
    },
    40,
    { warmup: 5 },
  );
  raw.close();

  const db = openDatabase(":memory:", { driver });
  db.exec(schema);
  const insert = db.prepare("INSERT INTO t (name, n, at) VALUES (@name, @n, @at)");
  const wrappedNs = await nsPerCall(
    () =>
      db.transaction(() => {
        for (let i = 0; i < ROWS; i++) insert.run(row);
      }),
    40,
    { warmup: 5 },
  );
  db.close();
  const overhead = wrappedNs / rawNs;
  report({ name: `${ROWS}-row transaction, raw ${driver}`, value: formatNs(rawNs) });
  report({
    name: `${ROWS}-row transaction, lib/sqlite (${driver})`,
    value: formatNs(wrappedNs),
    ratio: overhead,
    note: "x raw driver (target <= 1.2)",
    pass: overhead <= 1.2,
  });

  const dir = mkdtempSync(join(tmpdir(), "gov-bench-sqlite-"));
  try {
    const path = join(dir, "locked.db");
    const holder = openDatabase(path, { driver });
    holder.pragma("journal_mode = WAL");
    holder.exec(schema);
    holder.exec("BEGIN IMMEDIATE");
    const writer = openDatabase(path, { driver, busyTimeoutMs: WRITER_BUSY_TIMEOUT_MS });
    const busyNs = await nsPerCall(
      () => {
        try {
          writer.transaction(() => undefined);
        } catch {
          // SQLITE_BUSY, as intended
        }
      },
      20,
      { warmup: 2 },
    );
    writer.close();
    holder.exec("ROLLBACK");
    holder.close();
    const share = busyNs / (OLD_BUSY_WAIT_MS * 1e6);
    report({
      name: `failed write attempt on a locked file (busy_timeout ${WRITER_BUSY_TIMEOUT_MS} ms)`,
      value: formatNs(busyNs),
      ratio: share,
      note: `x the old ${OLD_BUSY_WAIT_MS} ms busy wait (target <= 0.01)`,
      pass: share <= 0.01,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default suite;

/**
 * The writer against a database locked by a second connection on the real file, on a manual clock:
 * rows stay buffered (bounded, drops counted), retries back off, the user hears once when the wait
 * starts and once when it ends, close() is bounded and reports what it could not write, and only a
 * failure that waiting cannot heal disables the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeWithSqlite } from "../../../helpers/sqlite-available.ts";
import type { Logger } from "pi-governor";
import { openDatabase, probeSqlite, SQLITE_DRIVER_ENV, type SqliteDatabase } from "../../../../lib/sqlite/index.ts";
import { ExecutionLogWriter, type PendingExecution } from "../../../../plugins/execution-log/index.ts";
import { ManualClock } from "pi-governor/testing";

let dir: string;
let other: SqliteDatabase | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gov-exec-busy-"));
});
afterEach(() => {
  other?.close();
  other = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const row = (taskId: string): PendingExecution => ({
  taskId,
  toolName: "t",
  status: "SUCCESS",
  durationMs: 1,
  startedAtMs: 0,
  sessionId: "",
  errorCategory: undefined,
  retries: 0,
  args: {},
  content: [],
});

function setup(options: { maxBufferedRows?: number; closeTimeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const path = join(dir, "exec.db");
  const logs: Array<{ level: string; message: string }> = [];
  const logger: Logger = {
    debug() {},
    info: (message: string) => void logs.push({ level: "info", message }),
    warn: (message: string) => void logs.push({ level: "warn", message }),
    error() {},
    child: () => logger,
  };
  const notes: Array<{ message: string; level: string }> = [];
  const writer = new ExecutionLogWriter(
    { path, phase: "", batchSize: 2, flushIntervalMs: 1_000, maxBufferedRows: options.maxBufferedRows ?? 100, closeTimeoutMs: options.closeTimeoutMs ?? 2_000 },
    { clock, logger, notify: (message, level) => void notes.push({ message, level }) },
  );
  const taskIds = () => {
    const db = openDatabase(path, { readonly: true });
    try {
      return db
        .prepare<{ task_id: string }>("SELECT task_id FROM tool_execution_log ORDER BY id")
        .all()
        .map((r) => r.task_id);
    } finally {
      db.close();
    }
  };
  return { clock, path, logs, notes, writer, taskIds };
}

/** A second connection to the same file taking the write lock (as another process would). */
function lock(path: string): SqliteDatabase {
  other = openDatabase(path);
  other.exec("BEGIN IMMEDIATE");
  return other;
}

describeWithSqlite("execution log writer on a busy database", () => {
  it("keeps rows while locked, retries with backoff, drops only beyond maxBufferedRows, and writes the rest when the lock clears", async () => {
    const { clock, path, logs, notes, writer, taskIds } = setup({ maxBufferedRows: 5 });
    writer.add(row("before"));
    await clock.advance(1_000);
    expect(writer.written).toBe(1);
    const holder = lock(path);
    for (let i = 0; i < 8; i++) writer.add(row(`r${i}`));
    await clock.advance(0);
    expect(writer.busy).toBe(true);
    await clock.advance(1_000);
    expect(writer.pending).toBe(5);
    expect(writer.lost).toBe(3);
    // Backoff between attempts: 50, 100, 200, 400, 800 ms (capped at 2 s).
    expect(clock.requested.filter((ms) => ms >= 50 && ms < 1_000)).toEqual([50, 100, 200, 400, 800]);
    const warnings = logs.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(
      /execution log at .*exec\.db is locked by another process \(SQLITE_BUSY\); 5 rows are kept in memory \(up to executionLog\.maxBufferedRows = 5\) and written when the lock clears/,
    );
    holder.exec("COMMIT");
    await clock.advance(2_000);
    expect(writer.busy).toBe(false);
    expect(taskIds()).toEqual(["before", "r3", "r4", "r5", "r6", "r7"]);
    const recovered = logs.filter((l) => l.level === "info");
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.message).toMatch(
      /is writable again after \d+(\.\d)?s: wrote 5 rows that waited; 3 older rows were dropped because the buffer was full/,
    );
    expect(notes.map((n) => n.level)).toEqual(["warning", "info"]);
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(1);
    await writer.close();
  });

  it("a retry against a busy database does not re-serialise the backlog: sizes are measured once, after BEGIN succeeds", async () => {
    const { clock, path, writer } = setup();
    writer.add(row("a"));
    await clock.advance(1_000);
    const holder = lock(path);
    let serialised = 0;
    for (let i = 0; i < 4; i++) writer.add({ ...row(`r${i}`), args: { toJSON: () => (serialised++, { big: "x" }) } });
    await clock.advance(3_000);
    expect(writer.busy).toBe(true);
    expect(clock.requested.filter((ms) => ms >= 50 && ms < 1_000).length).toBeGreaterThanOrEqual(4);
    expect(serialised).toBe(0);
    holder.exec("COMMIT");
    await clock.advance(2_000);
    expect(writer.written).toBe(5);
    expect(serialised).toBe(4);
    await writer.close();
  });

  it("a lock that clears during close(): every row is written before it returns", async () => {
    const { clock, path, logs, writer, taskIds } = setup();
    writer.add(row("a"));
    await clock.advance(1_000);
    const holder = lock(path);
    writer.add(row("b"));
    writer.add(row("c"));
    const closing = writer.close();
    await clock.advance(100);
    holder.exec("COMMIT");
    await clock.advance(1_000);
    await closing;
    expect(taskIds()).toEqual(["a", "b", "c"]);
    expect(writer.lost).toBe(0);
    expect(logs.filter((l) => /could not be written/.test(l.message))).toEqual([]);
  });

  it("close() gives up after closeTimeoutMs and reports the rows it could not write", async () => {
    const { clock, path, logs, notes, writer, taskIds } = setup({ closeTimeoutMs: 500 });
    writer.add(row("a"));
    await clock.advance(1_000);
    lock(path);
    for (const id of ["b", "c", "d"]) writer.add(row(id));
    const started = clock.now();
    const closing = writer.close();
    await clock.advance(5_000);
    await closing;
    expect(clock.now() - started).toBeLessThanOrEqual(5_000);
    expect(clock.pending).toBe(0);
    expect(writer.lost).toBe(3);
    const lost = logs.filter((l) => /could not be written/.test(l.message));
    expect(lost).toHaveLength(1);
    expect(lost[0]!.message).toMatch(/3 execution-log rows could not be written to .* before shutdown: the database stayed locked by another process/);
    expect(notes.at(-1)!.level).toBe("warning");
    other!.exec("COMMIT");
    expect(taskIds()).toEqual(["a"]);
  });

  it("a corrupt file is not a lock: one warning with the fix, then the log is off", async () => {
    const { clock, path, logs, notes, writer } = setup();
    writeFileSync(path, "this is not a SQLite database, just text that is long enough to have a header ".repeat(20));
    for (let i = 0; i < 6; i++) writer.add(row(`r${i}`));
    await clock.advance(5_000);
    expect(writer.degraded).toBe(true);
    expect(writer.busy).toBe(false);
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(1);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.message).toMatch(
      /is unavailable: the file is corrupt or not a SQLite database \(.*not a database.*\)\. Set it aside: mv .*; a new log is created at the next start/,
    );
    expect(clock.pending).toBe(0);
    await writer.close();
  });

  it("a driver that cannot load disables the log with one warning naming the driver and the fix", async (ctx) => {
    const probe = probeSqlite({ env: {} });
    const missing = (["node", "better-sqlite3"] as const).find((d) => probe.unavailable[d]);
    if (!missing) return ctx.skip("both SQLite drivers load on this Node");
    const saved = process.env[SQLITE_DRIVER_ENV];
    process.env[SQLITE_DRIVER_ENV] = missing;
    try {
      const { clock, notes, writer } = setup();
      writer.add(row("a"));
      await clock.advance(1_000);
      expect(writer.degraded).toBe(true);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.message).toMatch(missing === "node" ? /node:sqlite needs Node >= 22\.13/ : /npm (rebuild|install --no-save) better-sqlite3/);
    } finally {
      if (saved === undefined) delete process.env[SQLITE_DRIVER_ENV];
      else process.env[SQLITE_DRIVER_ENV] = saved;
    }
  });
});

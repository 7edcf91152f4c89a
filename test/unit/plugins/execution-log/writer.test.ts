import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeWithSqlite } from "../../../helpers/sqlite-available.ts";
import { createGovernor } from "pi-governor/host";
import { definePreset, textContent, type UiBridge } from "pi-governor";
import { openDatabase, type SqliteDatabase } from "../../../../lib/sqlite/index.ts";
import { executionLog, ExecutionLogWriter, migrate, SCHEMA_VERSION } from "../../../../plugins/execution-log/index.ts";
import { ManualClock } from "pi-governor/testing";
import { toolsPlugin } from "pi-governor/testing";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gov-exec-log-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A tiny plugin contributing tools that succeed, fail or report a rate limit. */
const tools = toolsPlugin([
  { name: "echo", execute: async (call) => ({ content: textContent(String(call.args.text ?? "")) }) },
  {
    name: "broken",
    execute: async () => {
      throw Object.assign(new Error("reset"), { code: "ECONNRESET" });
    },
  },
]);

async function governor(dbPath: string, clock = new ManualClock()) {
  const preset = definePreset({ name: "t", description: "", plugins: () => [executionLog(), tools()] });
  const gov = await createGovernor({ preset, cwd: dir, agentDir: dir, env: {}, clock, layers: [], overrides: { executionLog: { dbPath } } });
  return { gov, clock };
}

const rows = (path: string) => {
  const db = openDatabase(path, { readonly: true });
  try {
    return db.prepare("SELECT * FROM tool_execution_log ORDER BY id").all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
};

describeWithSqlite("execution log", () => {
  it("records every governed call with the base columns plus session, category, retries and bytes", async () => {
    const path = join(dir, "exec.db");
    const { gov } = await governor(path);
    await gov.pipeline.callTool("echo", { text: "héllo" }, { toolCallId: "tc-1", sessionId: "s-1" });
    await gov.pipeline.callTool("broken", {}, { toolCallId: "tc-2", sessionId: "s-1" });
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s-1", cwd: dir, reason: "quit" });
    const r = rows(path);
    expect(r).toHaveLength(2);
    expect(r[0]).toMatchObject({
      task_id: "tc-1",
      tool_name: "echo",
      status: "SUCCESS",
      session_id: "s-1",
      error_category: null,
      retries: 0,
      bytes_in: Buffer.byteLength('{"text":"héllo"}'),
      bytes_out: Buffer.byteLength("héllo"),
      phase: null,
    });
    expect(r[1]).toMatchObject({ task_id: "tc-2", tool_name: "broken", status: "ERROR", error_category: "network" });
    expect(typeof r[0]!.duration_ms).toBe("number");
    expect(String(r[0]!.started_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(Date.parse(String(r[0]!.completed_at))).toBeGreaterThanOrEqual(Date.parse(String(r[0]!.started_at)));
  });

  it("skips excluded tools and writes the phase label", async () => {
    const path = join(dir, "exec.db");
    const preset = definePreset({ name: "t", description: "", plugins: () => [executionLog({ exclude: ["broken"], phase: "phase-13" }), tools()] });
    const gov = await createGovernor({
      preset,
      cwd: dir,
      agentDir: dir,
      env: {},
      clock: new ManualClock(),
      layers: [],
      overrides: { executionLog: { dbPath: path } },
    });
    await gov.pipeline.callTool("echo", {});
    await gov.pipeline.callTool("broken", {});
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: dir, reason: "quit" });
    expect(rows(path).map((r) => [r.tool_name, r.phase])).toEqual([["echo", "phase-13"]]);
  });

  it("drops nothing when a burst fills the buffer and the database is writable: the full buffer is written at once", async () => {
    const clock = new ManualClock();
    const path = join(dir, "b.db");
    const warnings: string[] = [];
    const notes: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {}, child: () => logger };
    const w = new ExecutionLogWriter(
      { path, phase: "", batchSize: 1_000, flushIntervalMs: 1_000, maxBufferedRows: 3 },
      { clock, logger, notify: (m) => void notes.push(m) },
    );
    for (let i = 0; i < 12; i++)
      w.add({
        taskId: `t${i}`,
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
    expect(w.pending).toBeLessThanOrEqual(3);
    await w.close();
    expect(rows(path).map((r) => r.task_id)).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`));
    expect(w.lost).toBe(0);
    expect(warnings).toEqual([]);
    expect(notes).toEqual([]);
  });

  it("creates the database file with mode 0600", async () => {
    const path = join(dir, "sub", "exec.db");
    const { gov } = await governor(path);
    await gov.pipeline.callTool("echo", {});
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: dir, reason: "quit" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("writes nothing on the call path: rows wait for the flush timer, the batch size or shutdown", async () => {
    const path = join(dir, "exec.db");
    const clock = new ManualClock();
    const { gov } = await governor(path, clock);
    await gov.pipeline.callTool("echo", {});
    expect(() => statSync(path)).toThrow();
    expect(clock.pending).toBe(1);
    await clock.advance(1_000);
    expect(rows(path)).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it("degrades to one warning in the log and one in the UI when the database cannot be opened; calls still succeed", async () => {
    const blocker = join(dir, "file");
    writeFileSync(blocker, "not a directory");
    const { gov, clock } = await governor(join(blocker, "exec.db"));
    const notes: string[] = [];
    const ui: UiBridge = { hasUI: true, notify: (m) => notes.push(m), setStatus: () => {}, confirm: async () => false };
    gov.attachSession("s", ui);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 60; j++) expect((await gov.pipeline.callTool("echo", {})).status).toBe("SUCCESS");
      await clock.advance(1_000);
    }
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/execution log .* is unavailable/);
    expect(gov.logs.filter((l) => l.level === "warn" && /execution log/.test(l.message))).toHaveLength(1);
  });

  it("degrades to one warning when writes start failing after the database opened", async () => {
    const clock = new ManualClock();
    const path = join(dir, "w.db");
    const warnings: string[] = [];
    const notes: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {}, child: () => logger };
    let db: SqliteDatabase | undefined;
    const w = new ExecutionLogWriter(
      { path, phase: "", batchSize: 1, flushIntervalMs: 1_000, maxBufferedRows: 10 },
      {
        clock,
        logger,
        notify: (m) => void notes.push(m),
        open: (p) => {
          db = openDatabase(p);
          migrate(db);
          return db;
        },
      },
    );
    const row = {
      taskId: "",
      toolName: "t",
      status: "SUCCESS",
      durationMs: 1,
      startedAtMs: 0,
      sessionId: "",
      errorCategory: undefined,
      retries: 0,
      args: {},
      content: [],
    };
    w.add(row);
    await clock.advance(0);
    expect(w.written).toBe(1);
    // Another process drops the table (or the disk fills): the next batch fails.
    const other = openDatabase(path, { busyTimeoutMs: 1_000 });
    other.exec("DROP TABLE tool_execution_log");
    other.close();
    for (let i = 0; i < 5; i++) {
      w.add(row);
      await clock.advance(0);
    }
    expect(w.degraded).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(notes).toHaveLength(1);
    expect(clock.pending).toBe(0);
    await w.close();
  });

  it("flushes a full batch without waiting for the timer", async () => {
    const clock = new ManualClock();
    const path = join(dir, "w.db");
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {}, child: () => logger };
    const w = new ExecutionLogWriter({ path, phase: "p13", batchSize: 2, flushIntervalMs: 60_000, maxBufferedRows: 10 }, { clock, logger, notify: () => {} });
    const row = {
      taskId: "",
      toolName: "t",
      status: "SUCCESS",
      durationMs: 5,
      startedAtMs: Date.UTC(2026, 0, 1),
      sessionId: "",
      errorCategory: undefined,
      retries: 0,
      args: {},
      content: [],
    };
    w.add(row);
    w.add(row);
    await clock.advance(0);
    expect(w.written).toBe(2);
    expect(rows(path)[0]).toMatchObject({ phase: "p13", started_at: "2026-01-01T00:00:00.000Z", completed_at: "2026-01-01T00:00:00.005Z" });
    await w.close();
    expect(warnings).toEqual([]);
  });
});

describeWithSqlite("execution log migration", () => {
  it("is idempotent and records the schema version", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    migrate(db);
    expect(db.pragma("user_version")).toBe(SCHEMA_VERSION);
    const cols = db
      .prepare<{ name: string }>("PRAGMA table_info(tool_execution_log)")
      .all()
      .map((c) => c.name);
    expect(cols).toEqual([
      "id",
      "task_id",
      "tool_name",
      "phase",
      "status",
      "duration_ms",
      "started_at",
      "completed_at",
      "session_id",
      "error_category",
      "retries",
      "bytes_in",
      "bytes_out",
      "parent_task_id",
    ]);
    db.close();
  });

  it("brings a version-1 log (no parent_task_id) to the current schema and keeps its rows", () => {
    const db = openDatabase(":memory:");
    db.exec(
      "CREATE TABLE tool_execution_log (id INTEGER PRIMARY KEY, task_id TEXT, tool_name TEXT NOT NULL, phase TEXT, status TEXT NOT NULL, duration_ms INTEGER, started_at TEXT, completed_at TEXT, session_id TEXT, error_category TEXT, retries INTEGER NOT NULL DEFAULT 0, bytes_in INTEGER, bytes_out INTEGER)",
    );
    db.exec("INSERT INTO tool_execution_log (task_id, tool_name, status) VALUES ('t1', 'kota_search', 'SUCCESS')");
    db.pragma("user_version = 1");
    migrate(db);
    expect(db.pragma("user_version")).toBe(SCHEMA_VERSION);
    expect({ ...db.prepare("SELECT task_id, parent_task_id FROM tool_execution_log").get() }).toEqual({ task_id: "t1", parent_task_id: null });
    db.close();
  });

  it("adds the new columns to a base-column table created elsewhere and keeps its rows", () => {
    const db = openDatabase(":memory:");
    db.exec(
      "CREATE TABLE tool_execution_log (id INTEGER PRIMARY KEY, task_id TEXT, tool_name TEXT NOT NULL, phase TEXT, status TEXT NOT NULL, duration_ms INTEGER, started_at TEXT, completed_at TEXT)",
    );
    db.exec("INSERT INTO tool_execution_log (tool_name, status) VALUES ('run_command', 'TIMEOUT_EXCEEDED')");
    migrate(db);
    expect({ ...db.prepare("SELECT tool_name, status, retries, session_id FROM tool_execution_log").get() }).toEqual({
      tool_name: "run_command",
      status: "TIMEOUT_EXCEEDED",
      retries: 0,
      session_id: null,
    });
    db.close();
  });

  it("leaves a database of a newer schema alone", () => {
    const db = openDatabase(":memory:");
    db.pragma("user_version = 99");
    migrate(db);
    expect({ ...db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'tool_execution_log'").get() }).toEqual({ n: 0 });
    db.close();
  });
});

describeWithSqlite("execution log columns", () => {
  it("bounds and redacts every text column where the row is written, whatever the caller passed", async () => {
    const path = join(dir, "bounded.db");
    const clock = new ManualClock();
    const token = ["ghp", "_", "Wr1terC0lumn".repeat(3)].join("");
    const writer = new ExecutionLogWriter(
      {
        path,
        phase: "p",
        batchSize: 100,
        flushIntervalMs: 1_000,
        maxBufferedRows: 100,
        redactor: { redact: (t) => t.replaceAll(token, "[redacted:github-token]") },
      },
      { clock, logger: { debug() {}, info() {}, warn() {}, error() {} } as never, notify: () => {} },
    );
    const long = `${token}_${"z".repeat(65_540)}`;
    writer.add({
      taskId: long,
      parentTaskId: long,
      toolName: long,
      status: "SUCCESS",
      durationMs: 1,
      startedAtMs: 0,
      sessionId: long,
      errorCategory: long,
      retries: 0,
      args: {},
      content: [],
    });
    expect(writer.flush()).toBe("done");
    await writer.close();
    const [row] = rows(path);
    for (const column of ["task_id", "parent_task_id", "tool_name", "session_id", "error_category"]) {
      const value = row![column] as string;
      expect(value.length, column).toBeLessThanOrEqual(128);
      expect(value, column).not.toContain("ghp_");
      expect(value, column).toMatch(/^\[redacted:github-token\]/);
    }
    expect((row!.error_category as string).length).toBeLessThanOrEqual(64);
    expect(statSync(path).size).toBeLessThan(64 * 1024);
  });

  it("redacts with the built-in rules when it is given no redactor (the redact plugin off or absent)", async () => {
    const path = join(dir, "builtin.db");
    const token = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
    const writer = new ExecutionLogWriter(
      { path, phase: "p", batchSize: 100, flushIntervalMs: 1_000, maxBufferedRows: 100 },
      { clock: new ManualClock(), logger: { debug() {}, info() {}, warn() {}, error() {} } as never, notify: () => {} },
    );
    writer.add({
      taskId: `call_${token}`,
      toolName: "bash",
      status: "SUCCESS",
      durationMs: 1,
      startedAtMs: 0,
      sessionId: "s",
      errorCategory: undefined,
      retries: 0,
      args: {},
      content: [],
    });
    expect(writer.flush()).toBe("done");
    await writer.close();
    expect(rows(path)[0]!.task_id).toBe("call_[redacted:github-token]");
  });
});

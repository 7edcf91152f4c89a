/**
 * Calls pi runs itself, governed from pi's events: every call (pi's built-ins, pi's own MCP tools,
 * the calls a codemode script makes) gets an execution-log row with its parent, duration and
 * outcome; on pi 1.x a failing `mcp.json` server opens a circuit that blocks its calls with the next
 * step until a trial call succeeds. Real pi SDK sessions (faux model) with the default preset; MCP
 * servers over stdio (the big-answer fixture, server-everything behind the fault wrapper).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { openDatabase } from "../../lib/sqlite/index.ts";
import { bigAnswerServer } from "../fixtures/big-answer-mcp/command.ts";
import { numberedFiller } from "../fixtures/big-answer-mcp/filler.mjs";
import { faultyServer } from "../fixtures/faulty-mcp/command.ts";
import { hermeticDefaultPreset } from "../helpers/hermetic-preset.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { piTestScope, type PiTestSession } from "../helpers/pi-session.ts";

interface Row {
  task_id: string;
  parent_task_id: string | null;
  tool_name: string;
  status: string;
  error_category: string | null;
  duration_ms: number;
}

/** The execution log's rows, once `count` are written (the writer flushes off the call path). */
async function rowsOf(work: string, count: number): Promise<Row[]> {
  const path = join(work, "executions.db");
  let rows: Row[] = [];
  for (let i = 0; i < 100; i++) {
    if (existsSync(path)) {
      const db = openDatabase(path, { readonly: true });
      try {
        rows = db.prepare<Row>("SELECT task_id, parent_task_id, tool_name, status, error_category, duration_ms FROM tool_execution_log ORDER BY id").all();
      } finally {
        db.close();
      }
      if (rows.length >= count) return rows;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return rows;
}

/** pi's id of the first call of `toolName` in the transcript. */
function callIdOf(pi: PiTestSession, toolName: string): string | undefined {
  return (pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === toolName) as { toolCallId?: string } | undefined)
    ?.toolCallId;
}

/** Texts of the tool results pi stored for `toolName`, in order. */
function resultsOf(pi: PiTestSession, toolName: string): string[] {
  return pi.session.messages
    .filter((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === toolName)
    .map((m) => ((m as { content?: Array<{ text?: string }> }).content ?? []).map((b) => b.text ?? "").join("\n"));
}

describe(`calls pi runs itself (pi ${piHost.version})`, () => {
  const scope = piTestScope();

  it("pi's built-in tools get an execution-log row each, a failed one included", { timeout: 60_000 }, async (ctx) => {
    skipWithoutSqlite(ctx);
    const work = scope.tempDir("pigov-builtin-rows-");
    writeFileSync(join(work, "a.txt"), "alpha\n");
    const pi = await scope.start({
      extensions: [hermeticDefaultPreset(work)],
      cwd: work,
      responses: [
        fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("bash", { command: "echo out; exit 3" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    await pi.session.prompt("Read a.txt, then run a failing command.");

    const rows = await rowsOf(work, 2);
    expect(rows.map((r) => [r.tool_name, r.status, r.error_category, r.parent_task_id])).toEqual([
      ["read", "SUCCESS", null, null],
      // pi 1.x's bash answers a non-zero exit with its structured result; older pi throws.
      ["bash", "ERROR", piHasBuiltinMcp ? "tool_error" : "failed", null],
    ]);
    expect(rows.map((r) => r.task_id)).toEqual([callIdOf(pi, "read"), callIdOf(pi, "bash")]);
    for (const r of rows) expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });
});

/** The stored blob `id` in `work`'s blob dir, once written (recall writes off the call path). */
async function blobText(work: string, id: unknown): Promise<string | undefined> {
  if (typeof id !== "string" || !/^[0-9a-f]{64}$/.test(id)) return undefined;
  for (let i = 0; i < 100; i++) {
    for (const ext of [".txt", ".json"]) {
      const path = join(work, "blobs", `${id}${ext}`);
      if (existsSync(path)) return readFileSync(path, "utf8");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

/** `details` pi stored with the first result of `toolName`. */
function detailsOf(pi: PiTestSession, toolName: string): Record<string, unknown> | undefined {
  return (
    pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === toolName) as
      | { details?: Record<string, unknown> }
      | undefined
  )?.details;
}

describe(`pi's full-output files (pi ${piHost.version})`, () => {
  const scope = piTestScope();

  it("a bash output pi cut is stored whole from pi's full-output file", { timeout: 60_000 }, async () => {
    const work = scope.tempDir("pigov-bash-full-");
    const pi = await scope.start({
      extensions: [hermeticDefaultPreset(work)],
      cwd: work,
      responses: [
        fauxAssistantMessage([fauxToolCall("bash", { command: "seq 1 30000" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    await pi.session.prompt("Count.");
    const expected = `${Array.from({ length: 30_000 }, (_, i) => i + 1).join("\n")}\n`;
    expect(await blobText(work, detailsOf(pi, "bash")?.blobId)).toBe(expected);
  });
});

describe.skipIf(!piHasBuiltinMcp)(`pi's own MCP calls, governed (pi ${piHost.version})`, () => {
  const scope = piTestScope();

  it("a codemode script's calls of pi's MCP tools get rows with the script's call as parent, a failed one included", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-mcp-rows-");
    const server = bigAnswerServer();
    try {
      const script =
        'const a = await tools.mcp__big__echo({ text: "hi" });\nconst b = await tools.mcp__big__big({ bytes: -5 }).then(() => "ran", (e) => "rejected");\nreturn { a: typeof a, b };';
      const pi = await scope.start({
        extensions: [hermeticDefaultPreset(work)],
        cwd: work,
        piMcp: { servers: { big: { command: server.command, args: server.args, env: server.env } } },
        responses: [fauxAssistantMessage([fauxToolCall("codemode", { code: script })], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("done")])],
      });
      await pi.session.prompt("Call the server from a script.");

      expect(resultsOf(pi, "codemode")[0]).toContain('"b":"rejected"');
      const parent = callIdOf(pi, "codemode")!;
      const rows = await rowsOf(work, 3);
      const byTool = new Map(rows.map((r) => [r.tool_name, r]));
      expect(byTool.get("mcp__big__echo")).toMatchObject({ parent_task_id: parent, status: "SUCCESS" });
      expect(byTool.get("mcp__big__big")).toMatchObject({ parent_task_id: parent, status: "ERROR" });
      expect(byTool.get("codemode")).toMatchObject({ task_id: parent, parent_task_id: null, status: "SUCCESS" });
    } finally {
      server.cleanup();
    }
  });

  it("a failing mcp.json server: errors name the next step, the circuit opens and blocks its calls, and a trial call after the cool-down closes it", {
    timeout: 120_000,
  }, async () => {
    const work = scope.tempDir("pigov-mcp-breaker-");
    const server = faultyServer({ mode: "crash-mid-call", tool: "echo" });
    const cooldownMs = 1_000;
    try {
      const echo = (message: string) => fauxAssistantMessage([fauxToolCall("mcp__faulty__echo", { message })], { stopReason: "toolUse" });
      const pi = await scope.start({
        extensions: [hermeticDefaultPreset(work, { breaker: { failureThreshold: 2, cooldownMs } })],
        cwd: work,
        piMcp: { servers: { faulty: { command: server.command, args: server.args, env: server.env, exposure: "direct" } } },
        responses: [
          echo("one"),
          echo("two"),
          echo("three"),
          async () => {
            server.heal();
            await new Promise((r) => setTimeout(r, cooldownMs + 200));
            return echo("four");
          },
          fauxAssistantMessage([fauxText("done")]),
        ],
      });
      await pi.session.prompt("Echo four times.");

      const results = resultsOf(pi, "mcp__faulty__echo");
      expect(results).toHaveLength(4);
      for (const failed of results.slice(0, 2)) expect(failed).toContain("/mcp reconnect faulty");
      expect(results[2]).toMatch(/paused/);
      expect(results[2]).toContain("/mcp reconnect faulty");
      expect(results[3]).toContain("four");
      const rows = (await rowsOf(work, 4)).filter((r) => r.tool_name === "mcp__faulty__echo");
      expect(rows.map((r) => [r.status, r.error_category])).toEqual([
        ["ERROR", "failed"],
        ["ERROR", "failed"],
        ["ERROR", "blocked"],
        ["SUCCESS", null],
      ]);
      expect(server.starts()).toBeGreaterThanOrEqual(3); // pi restarted the crashed server; the blocked call started none
    } finally {
      server.cleanup();
    }
  });

  it("a top-level answer pi cut to 20 KB is stored whole (recall) from pi's full-output file", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-mcp-full-");
    const server = bigAnswerServer();
    try {
      const pi = await scope.start({
        extensions: [hermeticDefaultPreset(work)],
        cwd: work,
        piMcp: { servers: { big: { command: server.command, args: server.args, env: server.env, exposure: "direct" } } },
        responses: [
          fauxAssistantMessage([fauxToolCall("mcp__big__big_structured", { bytes: 100_000 })], { stopReason: "toolUse" }),
          fauxAssistantMessage([fauxText("done")]),
        ],
      });
      await pi.session.prompt("Fetch the big answer.");
      const details = detailsOf(pi, "mcp__big__big_structured");
      expect(details?.fullOutputPath, "pi cut the answer and saved it").toEqual(expect.any(String));
      expect(resultsOf(pi, "mcp__big__big_structured")[0]!.length).toBeLessThan(30_000);
      expect(await blobText(work, details?.blobId)).toBe(numberedFiller(100_000));
    } finally {
      server.cleanup();
    }
  });
});

/**
 * The execution log against what the model controls, in real pi (print mode, the scripted provider):
 * one model response of 17 calls, 15 to tools that do not exist under 65,540-character names, one
 * under a GitHub token as its name, and one call of pi's `read` whose call id (the provider's) is a
 * token padded to 65 KB. Every row is written, unknown tools under one label, no column holds more
 * than its bound or any part of the token, the database stays small, and `pi-governor stats` prints
 * a few lines.
 */
import { spawnSync } from "node:child_process";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";

/** The label rows of unknown tools carry (UNKNOWN_TOOL_LABEL in plugins/execution-log). */
const UNKNOWN_TOOL_LABEL = "(unknown tool)";
const TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const LONG = 65_540;

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

describe.skipIf(probeSqlite().driver === undefined)("execution log rows for calls the model invents", () => {
  it("17 calls: unknown tools under one label, every column bounded, no token stored, stats stays short", async () => {
    const ws = piWorkspace("pigov-invented-");
    work = ws.root;
    const { project, agentDir, home } = ws;
    writeFileSync(join(project, "notes.txt"), "hello\n");
    const invented = Array.from({ length: 15 }, (_, i) => ({ name: `${String.fromCharCode(97 + i).repeat(LONG - 2)}${i}`.slice(0, LONG), arguments: {} }));
    const calls = [...invented, { name: TOKEN, arguments: { q: 1 } }, { name: "read", arguments: { path: "notes.txt" }, id: `${TOKEN}_${"i".repeat(LONG)}` }];
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCalls: calls }, { text: "done" }],
      prompt: "go",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "mcp" },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.stdout).toContain("done");

    const dbPath = join(agentDir, "pi-governor", "executions.db");
    const bytes = statSync(dbPath).size;
    const db = openDatabase(dbPath, { readonly: true });
    let rows: Array<Record<string, unknown>>;
    try {
      rows = db.prepare("SELECT * FROM tool_execution_log").all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
    const stats = spawnSync(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), "stats", "--db", dbPath], {
      encoding: "utf8",
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir },
    });
    if (process.env.PI_GOVERNOR_REPORT) console.info(JSON.stringify({ rows: rows.length, dbBytes: bytes, statsBytes: stats.stdout.length }));

    expect(rows).toHaveLength(calls.length);
    expect(rows.filter((r) => r.tool_name === UNKNOWN_TOOL_LABEL)).toHaveLength(16);
    const read = rows.find((r) => r.tool_name === "read")!;
    expect(read.status).toBe("SUCCESS");
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value !== "string") continue;
        expect(value.length, column).toBeLessThanOrEqual(128);
        expect(value, column).not.toContain("ghp_");
        expect(value, column).not.toContain("A1b2C3d4E5f6");
      }
    }
    expect(bytes).toBeLessThan(128 * 1024);
    expect(stats.status).toBe(0);
    expect(stats.stdout).toMatch(new RegExp(`^${UNKNOWN_TOOL_LABEL.replace(/[()]/g, "\\$&")} +16 `, "m"));
    expect(stats.stdout.length).toBeLessThan(4096);
    expect(stats.stdout).not.toContain("ghp_");
  }, 180_000);
});

/**
 * The execution log and the recall index in a real pi session (print mode, the mcp preset with the
 * real server-everything): a project file's 200,000-character `executionLog.phase` is refused (it was
 * copied into every row: 96 MiB after 12 calls at 8 MiB), the rows are written, and pi leaves no
 * `-wal`/`-shm` file behind when it exits (the databases are checkpointed and closed at session end).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

const require = createRequire(import.meta.url);
const everythingEntry = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
const CALLS = 12;

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

/** Every file under `dir`, recursively, relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe.skipIf(probeSqlite().driver === undefined)("execution log and recall index in pi print mode", () => {
  it("refuses a huge project phase, writes small rows, and leaves no -wal/-shm files", async () => {
    work = mkdtempSync(join(tmpdir(), "pigov-log-e2e-"));
    const project = join(work, "repo");
    const agentDir = join(work, "agent");
    const home = join(work, "home");
    for (const d of [join(project, ".pi"), agentDir, home]) mkdirSync(d, { recursive: true });
    writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify({ executionLog: { phase: "p".repeat(200_000) } }));
    const servers = {
      everything: {
        command: process.execPath,
        args: [everythingEntry, "stdio"],
        tools: [{ name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }],
      },
    };
    const script = [
      ...Array.from({ length: CALLS }, (_, i) => ({ toolCall: { name: "everything_echo", arguments: { message: `call ${i}` } } })),
      { text: "all echoed" },
    ];
    const run = await runPiCli({
      extensions: [repoRoot],
      script,
      prompt: "echo twelve times",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "mcp", PI_GOVERNOR_CONFIG: JSON.stringify({ mcp: { servers } }) },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("all echoed");
    expect(run.stderr).toMatch(/executionLog\.phase: "p{20,}\.\.\. is too large; use at most 64 characters/);

    // Before this test opens a database itself (a reader of a WAL database makes its own -shm).
    const leftovers = [...filesUnder(agentDir), ...filesUnder(join(home, ".pi"))].filter((f) => /-(wal|shm|journal)$/.test(f));
    expect(leftovers).toEqual([]);
    expect(filesUnder(agentDir)).toContain("pi-governor/executions.db");
    expect(filesUnder(agentDir)).toContain("cache/pi-governor/recall/index.db");

    const dbPath = join(agentDir, "pi-governor", "executions.db");
    // `pi-governor stats` reads it and leaves no -wal/-shm behind either.
    const stats = spawnSync(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), "stats", "--db", dbPath], {
      encoding: "utf8",
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir },
    });
    expect(stats.stdout).toMatch(/everything_echo/);
    expect(filesUnder(agentDir).filter((f) => /-(wal|shm)$/.test(f))).toEqual([]);
    expect(statSync(dbPath).size).toBeLessThan(1024 * 1024);
    const db = openDatabase(dbPath, { readonly: true });
    try {
      const rows = db.prepare("SELECT tool_name, phase FROM tool_execution_log").all() as Array<{ tool_name: string; phase: string | null }>;
      expect(rows).toHaveLength(CALLS);
      expect(rows.every((r) => r.tool_name === "everything_echo" && r.phase === null)).toBe(true);
    } finally {
      db.close();
    }
  }, 180_000);
});

/**
 * The recall index against what the provider controls, in real pi (print mode, mcp preset): two calls
 * whose call ids are 4 MiB each. Every text column of the index is bounded as the execution log's are
 * (one helper), so the index stays small, and `pi-governor search --json` prints a bounded answer.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";
import { describeWithSqlite } from "../helpers/sqlite-available.ts";

const HUGE = 4 * 1024 * 1024;

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

describeWithSqlite("recall index columns", () => {
  it("4 MiB call ids: the index stays small and search --json stays bounded", async () => {
    const ws = piWorkspace("pigov-recall-bigid-");
    work = ws.root;
    const { project, agentDir, home } = ws;
    writeFileSync(join(project, "x.txt"), "hello\n");
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [
        {
          toolCalls: [
            { name: "bash", id: `id_${"A".repeat(HUGE)}1`, arguments: { command: "echo hello" } },
            { name: "read", id: `id_${"A".repeat(HUGE)}2`, arguments: { path: "x.txt" } },
          ],
        },
        { text: "done" },
      ],
      prompt: "go",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "mcp" },
      timeoutMs: 240_000,
    });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    const dir = join(agentDir, "cache", "pi-governor", "recall");
    const size = ["index.db", "index.db-wal"].reduce((n, f) => n + (existsSync(join(dir, f)) ? statSync(join(dir, f)).size : 0), 0);
    expect(existsSync(join(dir, "index.db")), "the outputs were indexed").toBe(true);
    expect(size).toBeLessThan(1024 * 1024);
    const search = spawnSync(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), "search", "hello", "--json"], {
      encoding: "utf8",
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(search.status, search.stderr).toBe(0);
    const hits = (JSON.parse(search.stdout) as { hits: Array<Record<string, unknown>> }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(search.stdout.length).toBeLessThan(64 * 1024);
    for (const hit of hits) expect(String(hit.toolCallId).length).toBeLessThanOrEqual(128);
  }, 300_000);
});

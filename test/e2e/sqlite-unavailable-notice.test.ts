/**
 * pi where no SQLite driver loads (pi 0.73 on Node 20 without better-sqlite3; on Node >= 22.13 the
 * same by forcing the better-sqlite3 driver, which is missing): the real `pi` CLI in print mode says
 * so in ONE short warning that names the cause, every stage it turns off (the execution log, recall's
 * search index) and the fix, without a doubled prefix or a doubled period; the session runs on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

const withoutBetterSqlite3 = join(repoRoot, "test/fixtures/sqlite/without-better-sqlite3.cjs");
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 13);

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-nosqlite-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe("no SQLite driver: one warning", () => {
  it("print mode: one line with the cause, what is off (execution log and recall) and the fix", async () => {
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "bash", arguments: { command: "echo hi" } } }, { text: "done" }],
      prompt: "run it",
      cwd: work,
      env: {
        NODE_OPTIONS: `--require ${withoutBetterSqlite3}`,
        PI_GOVERNOR_CONFIG: JSON.stringify({ preset: "mcp" }),
        // On a Node with node:sqlite, the missing module is only missed when it is the driver asked for.
        ...(hasNodeSqlite ? { PI_GOVERNOR_SQLITE_DRIVER: "better-sqlite3" } : { PI_GOVERNOR_SQLITE_DRIVER: undefined }),
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/done/);
    const notices = run.stderr.split("\n").filter((l) => l.startsWith("pi-governor"));
    expect(notices).toHaveLength(1);
    const [notice] = notices as [string];
    expect(notice).toMatch(/^pi-governor warning: /);
    expect(notice).not.toMatch(/pi-governor[ \w]*: pi-governor/);
    expect(notice).not.toMatch(/\.\./);
    expect(notice).toMatch(/better-sqlite3 is not installed/);
    expect(notice).toMatch(/so the execution log and recall's search index .* are off\./);
    expect(notice).toMatch(/Fix: .*npm install --no-save better-sqlite3/);
    if (!hasNodeSqlite) expect(notice).toMatch(/node:sqlite needs Node >= 22\.13.*Fix: run pi on Node >= 22\.13/);
    expect(notice.length).toBeLessThan(600);
  }, 90_000);
});

/**
 * Recall's hardening in the real `pi` CLI (print mode, scripted model) and `pi-governor search`, with
 * a private HOME and a second-profile agent dir (PI_CODING_AGENT_DIR):
 * - the index and every blob live under the agent dir, and blob_read reads what recall stored;
 * - context_search offers scope "all" only when the global config says so: another project's output
 *   is out of reach by default;
 * - a session that ends while another process holds the index lock keeps its rows (a private spill
 *   file) and the next session indexes them;
 * - a world-writable index folder is refused with a warning.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSqlite } from "../../lib/sqlite/index.ts";
import { repoRoot, runPiCli, type PiCliRun, type ScriptStep } from "../helpers/pi-cli.ts";

let work: string;
let home: string;
let agentDir: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-recall-cli-"));
  home = join(work, "home");
  agentDir = join(work, "profile-b");
  for (const d of [home, agentDir, join(work, "alpha"), join(work, "beta")]) mkdirSync(d, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean", PI_GOVERNOR_CONFIG: undefined });
const cache = () => join(agentDir, "cache", "pi-governor");
const pi = (project: string, script: ScriptStep[], prompt = "go") =>
  runPiCli({ extensions: [repoRoot], script, prompt, cwd: join(work, project), env: env(), timeoutMs: 90_000 });

/** `pi-governor search ...` with the same HOME and agent dir. */
function search(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin", "pi-governor.mjs"), "search", ...args], {
      env: { ...process.env, ...env() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

/** The text of each tool result the model was sent, by tool, in order. */
function results(run: PiCliRun, tool: string): string[] {
  const last = run.calls.at(-1)?.messages ?? [];
  return last.filter((m) => m.role === "toolResult" && m.toolName === tool).map((m) => JSON.stringify(m.content));
}

describe.skipIf(!probeSqlite().fts5)("recall hardening in the real pi CLI", () => {
  it("second profile: index and blobs under the agent dir; blob_read reads recall's blob; scope all is off by default, on only from the global config", async () => {
    const a = await pi("alpha", [{ toolCall: { name: "bash", arguments: { command: "echo DATABASE_HOST=hunter2-otterVault" } } }, { text: "done" }]);
    expect(a.code, a.stderr).toBe(0);
    expect(existsSync(join(cache(), "recall", "index.db"))).toBe(true);
    expect(existsSync(join(home, ".pi"))).toBe(false);

    const found = await search(["otterVault", "--json"]);
    expect(found.code, found.stderr).toBe(0);
    const blobId = (JSON.parse(found.stdout) as { hits: Array<{ blobId: string }> }).hits[0]!.blobId;
    expect(existsSync(join(cache(), "blobs", `${blobId}.txt`))).toBe(true);

    // Another project (a prompt injection there): no scope "all", nothing of alpha's output.
    const b = await pi("beta", [
      { toolCall: { name: "context_search", arguments: { query: "otterVault", scope: "all" } } },
      { toolCall: { name: "context_search", arguments: { query: "otterVault", scope: "project" } } },
      { toolCall: { name: "blob_read", arguments: { blobId } } },
      { text: "done" },
    ]);
    expect(b.code, b.stderr).toBe(0);
    const searches = results(b, "context_search");
    expect(searches).toHaveLength(2);
    for (const s of searches) expect(s).not.toContain("hunter2");
    expect(searches[0]).toMatch(/scope/);
    // The user's own blob_read (an id they hold) works in this profile: the store is the blobs plugin's.
    expect(results(b, "blob_read")[0]).toContain("DATABASE_HOST=hunter2-otterVault");

    writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ recall: { searchAllProjects: true } }));
    try {
      const c = await pi("beta", [{ toolCall: { name: "context_search", arguments: { query: "otterVault", scope: "all" } } }, { text: "done" }]);
      expect(c.code, c.stderr).toBe(0);
      expect(results(c, "context_search")[0]).toContain("hunter2-«otterVault»");
    } finally {
      rmSync(join(agentDir, "pi-governor.json"));
    }
  }, 300_000);

  it("a session ending while another process holds the index lock keeps its rows; the next session indexes them", async () => {
    const db = join(cache(), "recall", "index.db");
    expect(existsSync(db)).toBe(true); // made by the test above
    const holder = spawn(process.execPath, [join(repoRoot, "test/fixtures/sqlite/lock-holder.mjs"), db, "20000", "exclusive"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<void>((res) => holder.once("exit", () => res()));
    await new Promise<void>((res) => createInterface({ input: holder.stdout! }).on("line", (l) => l === "locked" && res()));
    try {
      const d = await pi("alpha", [{ toolCall: { name: "bash", arguments: { command: "echo walrusDeltaSpill" } } }, { text: "done" }]);
      expect(d.code, d.stderr).toBe(0);
      const spills = readdirSync(join(cache(), "recall")).filter((n) => n.includes(".spill-"));
      expect(spills).toHaveLength(1);
      expect(statSync(join(cache(), "recall", spills[0]!)).mode & 0o777).toBe(0o600);
    } finally {
      holder.kill("SIGTERM");
      await exited;
    }
    expect((await search(["walrusDeltaSpill"])).code).toBe(1); // not in the index yet
    const e = await pi("alpha", [{ text: "nothing to run" }]);
    expect(e.code, e.stderr).toBe(0);
    const after = await search(["walrusDeltaSpill"]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain("echo walrusDeltaSpill");
    expect(readdirSync(join(cache(), "recall")).filter((n) => n.includes(".spill-"))).toEqual([]);
  }, 300_000);

  it("a world-writable index folder is refused with a warning naming it; pi-governor search refuses it too", async () => {
    const folder = join(cache(), "recall");
    chmodSync(folder, 0o777);
    try {
      const f = await pi("alpha", [{ toolCall: { name: "bash", arguments: { command: "echo planted" } } }, { text: "done" }]);
      expect(f.code).toBe(0);
      expect(f.stderr).toContain(`recall index folder ${folder} is writable by every user`);
      const s = await search(["walrusDeltaSpill"]);
      expect(s.code).toBe(3);
      expect(s.stderr).toContain("is writable by every user");
    } finally {
      chmodSync(folder, 0o700);
    }
  }, 300_000);
});

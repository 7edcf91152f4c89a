/**
 * `pi-governor stats` and `search` open the files the plugins write, where the global config puts
 * them; a repository's own config (the folder the command runs in) must not move them.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeWithSqlite } from "../../helpers/sqlite-available.ts";
import { type CliContext, configuredPath } from "../../../lib/cli-command/index.ts";
import { openDatabase } from "../../../lib/sqlite/index.ts";
import { migrate } from "../../../plugins/execution-log/index.ts";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
let root: string;
let home: string;
let agentDir: string;
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gov-cli-config-"));
  home = join(root, "home");
  agentDir = join(root, "agent");
  project = join(root, "project");
  for (const d of [home, agentDir, join(project, ".pi")]) mkdirSync(d, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin", "pi-governor.mjs"), ...args], {
      cwd: project,
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_CONFIG: "", ...env },
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

function seedLog(path: string): void {
  const db = openDatabase(path);
  migrate(db);
  db.prepare("INSERT INTO tool_execution_log (tool_name, status, duration_ms, started_at, retries, error_category) VALUES (?, ?, ?, ?, ?, ?)").run(
    "kota_search",
    "SUCCESS",
    10,
    "2026-11-20T10:00:00.000Z",
    0,
    null,
  );
  db.close();
}

const globalConfig = (data: unknown) => writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify(data));
const projectConfig = (data: unknown) => writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify(data));

describeWithSqlite("CLI commands read the trusted config only", () => {
  it("a project config cannot point stats or search at a file it planted", async () => {
    const planted = join(project, "planted.db");
    seedLog(planted);
    projectConfig({ executionLog: { dbPath: planted }, recall: { dbPath: planted }, blobs: { dir: join(project, "blobs") } });
    const stats = await cli(["stats", "--json"]);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ db: join(agentDir, "pi-governor", "executions.db"), exists: false });
    const search = await cli(["search", "anything"]);
    expect(search.code).toBe(1);
    expect(search.stderr).toContain(`no recall index at ${join(agentDir, "cache", "pi-governor", "recall", "index.db")}`);
    expect(search.stderr).not.toContain(planted);
  });

  it("the global config and PI_GOVERNOR_CONFIG move them, and --db still wins", async () => {
    const custom = join(root, "custom-log.db");
    seedLog(custom);
    globalConfig({ executionLog: { dbPath: custom }, recall: { dbPath: join(root, "custom-index.db") } });
    const stats = await cli(["stats", "--json"]);
    expect(JSON.parse(stats.stdout)).toMatchObject({ db: custom, exists: true, tools: [expect.objectContaining({ tool: "kota_search", calls: 1 })] });
    const search = await cli(["search", "anything"]);
    expect(search.stderr).toContain(`no recall index at ${join(root, "custom-index.db")}`);
    const fromEnv = await cli(["stats", "--json"], { PI_GOVERNOR_CONFIG: JSON.stringify({ executionLog: { dbPath: join(root, "env.db") } }) });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ db: join(root, "env.db"), exists: false });
    const flag = await cli(["stats", "--json", "--db", join(root, "flag.db")]);
    expect(JSON.parse(flag.stdout)).toMatchObject({ db: join(root, "flag.db") });
  });
});

describe("configuredPath", () => {
  const context = (data: Record<string, unknown>): CliContext => ({ trustedConfig: async () => data });
  it("takes a bounded, non-empty string without NUL; anything else falls back to the default", async () => {
    expect(await configuredPath(context({ blobs: { dir: "/x/blobs" } }), "blobs", "dir")).toBe("/x/blobs");
    for (const dir of ["", "a".repeat(5_000), "/x\0/y", 42, null, ["/x"], { a: 1 }])
      expect(await configuredPath(context({ blobs: { dir } }), "blobs", "dir")).toBeUndefined();
    expect(await configuredPath(context({ blobs: "/x" }), "blobs", "dir")).toBeUndefined();
    expect(await configuredPath(undefined, "blobs", "dir")).toBeUndefined();
  });
});

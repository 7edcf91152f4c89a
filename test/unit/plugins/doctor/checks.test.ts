import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createGovernor, type Governor } from "../../../../core/index.ts";
import { checkBlobDir } from "../../../../lib/blobs/index.ts";
import {
  checkBlobFolders,
  checkCacheDir,
  checkConfig,
  checkKota,
  checkNode,
  checkPi,
  checkPreset,
  checkSqlite,
  type DoctorEnvironment,
  formatDoctorReport,
  runDoctor,
} from "../../../../plugins/doctor/index.ts";
import { kotaDefaults } from "../../../../plugins/kota/config.ts";
import { presets } from "../../../../presets/index.ts";

const work = mkdtempSync(join(tmpdir(), "gov-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A governor built from real files: `global` is written to <agentDir>/pi-governor.json when given. */
async function governorWith(global?: string, project?: string): Promise<{ governor: Governor; cwd: string; agentDir: string }> {
  const root = join(work, `case-${n++}`);
  const agentDir = join(root, "agent");
  const cwd = join(root, "repo");
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  if (global !== undefined) writeFileSync(join(agentDir, "pi-governor.json"), global);
  if (project !== undefined) writeFileSync(join(cwd, ".pi", "pi-governor.json"), project);
  const governor = await createGovernor({ preset: presets[0]!, presets: presets.slice(1), cwd, agentDir, env: {} });
  return { governor, cwd, agentDir };
}

function environment(governor: Governor, over: Partial<DoctorEnvironment> = {}): DoctorEnvironment {
  return {
    nodeVersion: "20.20.2",
    findPi: () => ({ scope: "@mariozechner", version: "0.73.1", dir: "/x" }),
    cwd: work,
    agentDir: work,
    env: { PATH: "/usr/bin" },
    governor,
    commandExists: () => true,
    kotaLaunch: async (config) => ({
      command: config.command,
      args: config.args,
      cwd: "/",
      env: { PATH: "/usr/bin" },
      connectTimeoutMs: 10_000,
      installHint: "Bun",
    }),
    startKota: async () => ({ tools: 7 }),
    kotaDeadlineMs: 1_000,
    probeSqlite: () => ({ driver: "node", sqliteVersion: "3.50.0", fts5: true, trigram: true, unavailable: {} }),
    openSqliteFile: () => {},
    blobDir: (d) => d,
    checkBlobDir: async () => "ready",
    ...over,
  };
}

describe("doctor checks", () => {
  it("node: an old Node fails with the version to install", () => {
    expect(checkNode({ nodeVersion: "20.20.2" }).status).toBe("ok");
    const old = checkNode({ nodeVersion: "18.19.0" });
    expect(old.status).toBe("fail");
    expect(old.fix).toMatch(/Install Node 20\.6 or later/);
  });

  it("pi: names the scope and version, and how to install pi when missing", () => {
    expect(checkPi({ findPi: () => ({ scope: "@earendil-works", version: "0.87.1", dir: "/p" }) }).detail).toMatch(/@earendil-works\/pi-coding-agent 0\.87\.1/);
    const missing = checkPi({ findPi: () => undefined });
    expect(missing.status).toBe("fail");
    expect(missing.fix).toMatch(/npm install -g @earendil-works\/pi-coding-agent/);
  });

  it("bun missing: fails with the install fix and does not try to start KotaDB", async () => {
    const { governor } = await governorWith();
    let started = false;
    const results = await checkKota(environment(governor, { commandExists: () => false, startKota: async () => ((started = true), { tools: 0 }) }));
    expect(results[0]).toMatchObject({ name: "bun", status: "fail" });
    expect(results[0]!.fix).toMatch(/Install Bun/);
    expect(results[1]).toMatchObject({ name: "kotadb", status: "skip" });
    expect(started).toBe(false);
  });

  it("KotaDB that does not start: fails with its error, stderr and the start hint", async () => {
    const { governor } = await governorWith();
    const failing = Object.assign(new Error("MCP server kota did not answer initialize within 1 s"), { stderrTail: "error: could not download kotadb@next" });
    const results = await checkKota(environment(governor, { startKota: async () => Promise.reject(failing) }));
    const kota = results.find((r) => r.name === "kotadb")!;
    expect(kota.status).toBe("fail");
    expect(kota.detail).toMatch(/did not answer initialize.*could not download/);
    expect(kota.fix).toMatch(/bun x downloads KotaDB/);
  });

  it("bun missing: the fix names the no-Bun choice (the lean preset) and the real global config file", async () => {
    const { governor } = await governorWith();
    const agentDir = join(work, "custom-agent-dir");
    const results = await checkKota(environment(governor, { agentDir, commandExists: () => false }));
    expect(results[0]!.fix).toContain(`"preset": "lean" in ${join(agentDir, "pi-governor.json")}`);
    expect(results[0]!.fix).not.toContain("~/.pi/agent");
  });

  it("KotaDB that exits at once (a registry 404): says it exited with its code, shows stderr once, and the fix for a missing package", async () => {
    const { governor } = await governorWith();
    const agentDir = join(work, "custom-agent-dir");
    const tail = 'error: GET https://registry.npmjs.org/kotadb - 404\nerror: package "kotadb@nope" not found';
    const exited = Object.assign(new Error(`MCP server "kota" exited with code 1 during start ('bun x kotadb@nope --stdio'). Last stderr: ${tail}`), {
      category: "spawn",
      stderrTail: tail,
    });
    const [, kota] = await checkKota(environment(governor, { agentDir, startKota: async () => Promise.reject(exited) }));
    expect(kota!.status).toBe("fail");
    expect(kota!.detail).toMatch(/^MCP server "kota" exited with code 1 during start/);
    expect(kota!.detail).not.toMatch(/within/);
    expect(kota!.detail.split("registry.npmjs.org/kotadb - 404").length - 1).toBe(1);
    expect(kota!.fix).toMatch(/The npm registry has no such package or version/);
    expect(kota!.fix).toContain(join(agentDir, "pi-governor.json"));
    expect(kota!.fix).not.toMatch(/network|download can take longer/);
  });

  it("KotaDB that runs out of time says so, with the network and first-download hints", async () => {
    const { governor } = await governorWith();
    const slow = Object.assign(new Error("kota failed to start within 1 s."), { category: "timeout" });
    const [, kota] = await checkKota(environment(governor, { startKota: async () => Promise.reject(slow) }));
    expect(kota!.detail).toMatch(/^did not start within 1 s: kota failed to start/);
    expect(kota!.fix).toMatch(/check network access.*download can take longer than the doctor waits/);
  });

  it("blob folders: recall and blobs share one folder, and the report names it", async () => {
    const same = await governorWith(JSON.stringify({ blobs: { dir: join(work, "my-blobs") } }));
    expect(checkBlobFolders(environment(same.governor, { agentDir: same.agentDir }))).toMatchObject({
      status: "ok",
      detail: expect.stringContaining(`blobs and recall share ${join(work, "my-blobs")}`),
    });
    const off = await governorWith(JSON.stringify({ recall: { enabled: false } }));
    expect(checkBlobFolders(environment(off.governor)).status).toBe("skip");
  });

  it("pi: says where the pi was found", () => {
    expect(checkPi({ findPi: () => ({ scope: "@earendil-works", version: "0.87.1", dir: "/g", source: "path" }) }).detail).toBe(
      "@earendil-works/pi-coding-agent 0.87.1 (/g); the `pi` on PATH",
    );
    expect(checkPi({ findPi: () => ({ scope: "@earendil-works", version: "1.5.2", dir: "/h", source: "running" }) }).detail).toMatch(
      /; the pi running this session$/,
    );
  });

  it("KotaDB is skipped in a preset without it (lean)", async () => {
    const { governor } = await governorWith(JSON.stringify({ preset: "lean" }));
    expect(governor.preset.name).toBe("lean");
    expect((await checkKota(environment(governor)))[0]).toMatchObject({ name: "kotadb", status: "skip" });
    expect(kotaDefaults.command).toBe("bun");
  });

  it("sqlite: no driver fails with the fix; no FTS5 warns", () => {
    const none = checkSqlite({
      probeSqlite: () => ({
        driver: undefined,
        sqliteVersion: undefined,
        fts5: false,
        trigram: false,
        unavailable: { node: "no node:sqlite in Node 20", "better-sqlite3": "NODE_MODULE_VERSION 115" },
      }),
      openSqliteFile: () => {},
      agentDir: work,
    });
    expect(none.status).toBe("fail");
    expect(none.detail).toMatch(/NODE_MODULE_VERSION/);
    expect(none.fix).toMatch(/npm rebuild better-sqlite3/);
    const noFts = checkSqlite({
      probeSqlite: () => ({ driver: "node", sqliteVersion: "3.40.0", fts5: false, trigram: false, unavailable: {} }),
      openSqliteFile: () => {},
      agentDir: work,
    });
    expect(noFts.status).toBe("warn");
    const noFile = checkSqlite({
      probeSqlite: () => ({ driver: "node", sqliteVersion: "3.40.0", fts5: true, trigram: true, unavailable: {} }),
      openSqliteFile: () => {
        throw new Error("SQLITE_CANTOPEN");
      },
      agentDir: work,
    });
    expect(noFile).toMatchObject({ status: "fail" });
  });

  it("blob cache: a group-writable directory and a symbolic link fail with the fix (real directories)", async () => {
    const { governor } = await governorWith();
    const open = join(work, "open-cache");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    const link = join(work, "link-cache");
    symlinkSync(open, link);
    const env = (dir: string) => environment(governor, { blobDir: () => dir, checkBlobDir: (d) => checkBlobDir(d, { create: false }) });
    const unsafe = await checkCacheDir(env(open));
    expect(unsafe.status).toBe("fail");
    expect(unsafe.fix).toMatch(/chmod 700/);
    const linked = await checkCacheDir(env(link));
    expect(linked.fix).toMatch(/symbolic link/);
    expect((await checkCacheDir(env(join(work, "not-yet")))).detail).toMatch(/not created yet/);
  });

  it("config: broken JSON and an unknown key are listed with their file", async () => {
    const { governor, cwd, agentDir } = await governorWith('{ "prune": { "enabled": tru }', JSON.stringify({ prune: { keepRecentTurnz: 3 } }));
    const results = checkConfig(environment(governor, { cwd, agentDir }));
    expect(results[0]!.status).toBe("fail");
    const text = results.map((r) => r.detail).join("\n");
    expect(text).toMatch(/pi-governor\.json: \(file\): not valid JSON/);
    expect(text).toMatch(/prune\.keepRecentTurnz: unknown key/);
    const clean = await governorWith(JSON.stringify({ prune: { enabled: true } }));
    const ok = checkConfig(environment(clean.governor, { cwd: clean.cwd, agentDir: clean.agentDir }));
    expect(ok[0]).toMatchObject({ status: "ok" });
    expect(ok[0]!.detail).toMatch(/global .* found; project .* not found/);
  });

  it("preset: names the preset and its stages, off stages included", async () => {
    const { governor } = await governorWith(JSON.stringify({ preset: "lean", prune: { enabled: false } }));
    const [line] = checkPreset(environment(governor));
    expect(line!.detail).toMatch(/"lean" \(chosen by config\); on: redact, policies, blobs, recall, doctor; off: prune, telemetry, chaos/);
  });

  it("runDoctor: one check throwing does not stop the others; the report shows each fix", async () => {
    const { governor } = await governorWith();
    const results = await runDoctor(
      environment(governor, {
        probeSqlite: () => {
          throw new Error("boom");
        },
        commandExists: () => false,
      }),
    );
    expect(results.map((r) => r.name)).toEqual(["node", "pi", "bun", "kotadb", "sqlite", "blob cache", "blob folders", "config", "preset"]);
    const text = formatDoctorReport(results);
    expect(text).toMatch(/FAIL {2}sqlite: the check itself failed: boom/);
    expect(text).toMatch(/fix: KotaDB needs Bun/);
    expect(text).toMatch(/2 failed, 0 warning/);
  });

  it("the report shows control characters of names, details and fixes as escapes (a server's version, a config key)", () => {
    const osc = "\u001b]52;c;aGVsbG8=\u0007";
    const text = formatDoctorReport([{ name: `n${osc}`, status: "fail", detail: `kotadb version ${osc}\nFAKE ok`, fix: `f${osc}` }]);
    expect(text).not.toContain("\u001b");
    expect(text).toContain("FAIL  n\\u001b]52;c;aGVsbG8=\\u0007: kotadb version \\u001b]52;c;aGVsbG8=\\u0007\\nFAKE ok");
    expect(text).toContain("fix: f\\u001b]52");
  });
});

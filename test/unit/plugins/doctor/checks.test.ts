import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { type DoctorCheckContext, definePlugin, definePreset, defineService, type Governor, type GovernorPlugin } from "pi-governor";
import {
  checkConfig,
  checkNode,
  checkPi,
  checkPlugins,
  checkPreset,
  checkSqlite,
  type DoctorEnvironment,
  formatDoctorReport,
  runDoctor,
} from "../../../../plugins/doctor/index.ts";
import { presets } from "../../../../presets/index.ts";
import { REPO_ROOT } from "../../architecture/import-graph.ts";

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
    startTimeoutMs: 1_000,
    probeSqlite: () => ({ driver: "node", sqliteVersion: "3.50.0", fts5: true, trigram: true, unavailable: {} }),
    openSqliteFile: () => {},
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

  it("pi: says where the pi was found", () => {
    expect(checkPi({ findPi: () => ({ scope: "@earendil-works", version: "0.87.1", dir: "/g", source: "path" }) }).detail).toBe(
      "@earendil-works/pi-coding-agent 0.87.1 (/g); the `pi` on PATH",
    );
    expect(checkPi({ findPi: () => ({ scope: "@earendil-works", version: "1.5.2", dir: "/h", source: "running" }) }).detail).toMatch(
      /; the pi running this session$/,
    );
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
    const { governor } = await governorWith(JSON.stringify({ preset: "lean", prune: { enabled: false }, fold: { enabled: false } }));
    const [line] = checkPreset(environment(governor));
    expect(line!.detail).toMatch(/"lean" \(chosen by config\); on: redact, policies, blobs, recall, doctor; off: fold, prune, telemetry, chaos/);
  });

  it("runDoctor: its own checks around the plugins' ones; one check throwing does not stop the others", async () => {
    const { governor } = await governorWith();
    const results = await runDoctor(
      environment(governor, {
        probeSqlite: () => {
          throw new Error("boom");
        },
        env: { PATH: join(work, "no-bin") },
      }),
    );
    // The kota preset's plugins check Bun and KotaDB (kota), the blob cache (blobs) and the index (recall).
    expect(results.map((r) => r.name)).toEqual(["node", "pi", "sqlite", "bun", "kotadb", "blob cache", "recall index", "config", "preset"]);
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

describe("checks the preset's plugins contribute", () => {
  const SOURCE = defineService<string>("acme:source", { providedBy: "acme:provider" });
  const seen: Array<{ config: Record<string, unknown>; context: DoctorCheckContext }> = [];
  const probe = definePlugin({
    name: "acme:probe",
    configKey: "probe",
    description: "A plugin with its own doctor checks.",
    schema: z.object({ port: z.number().int() }),
    defaults: { port: 7 },
    doctorChecks: (config, context) => {
      seen.push({ config, context });
      return [
        { name: "probe port", status: "ok", detail: `port ${config.port}` },
        { name: "probe server", status: "warn", detail: "slow", fix: "wait" },
      ];
    },
    apply() {},
  });
  const broken = definePlugin({
    name: "acme:broken",
    configKey: "broken",
    description: "A plugin whose check throws.",
    schema: z.object({}),
    defaults: {},
    doctorChecks: () => {
      throw new Error("probe exploded");
    },
    apply() {},
  });
  const provider = definePlugin({
    name: "acme:provider",
    configKey: "provider",
    description: "Provides acme:source.",
    schema: z.object({}),
    defaults: {},
    provides: [SOURCE],
    apply: (_p, _c, services) => services.provide(SOURCE, "x"),
  });
  const user = definePlugin({
    name: "acme:user",
    configKey: "user",
    description: "Needs acme:source.",
    schema: z.object({}),
    defaults: {},
    requires: [SOURCE],
    doctorChecks: () => [{ name: "user", status: "ok", detail: "never run while its provider is off" }],
    apply() {},
  });
  const quiet = definePlugin({ name: "acme:quiet", configKey: "quiet", description: "No checks.", schema: z.object({}), defaults: {}, apply() {} });

  async function governorOf(plugins: () => GovernorPlugin<any>[], global?: unknown): Promise<Governor> {
    const agentDir = join(work, `plugins-${n++}`);
    mkdirSync(agentDir, { recursive: true });
    if (global !== undefined) writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify(global));
    return createGovernor({ preset: definePreset({ name: "acme", description: "test", plugins }), cwd: work, agentDir, env: {} });
  }

  it("runs each plugin's checks in preset order with its config and the doctor's context; a throwing check is one failed line", async () => {
    seen.length = 0;
    const governor = await governorOf(() => [quiet(), probe(), broken()], { probe: { port: 9 }, doctor: { startTimeoutMs: 4_000 } });
    const results = await checkPlugins(environment(governor, { startTimeoutMs: 4_000, agentDir: join(work, "a"), cwd: join(work, "c") }));
    expect(results).toEqual([
      { name: "probe port", status: "ok", detail: "port 9" },
      { name: "probe server", status: "warn", detail: "slow", fix: "wait" },
      { name: "broken", status: "fail", detail: "the check itself failed: probe exploded" },
    ]);
    expect(seen).toEqual([
      { config: { port: 9, enabled: true }, context: { cwd: join(work, "c"), agentDir: join(work, "a"), env: { PATH: "/usr/bin" }, startTimeoutMs: 4_000 } },
    ]);
  });

  it("a plugin the config turned off, or one whose provider is off, gets one skip line and its checks do not run", async () => {
    seen.length = 0;
    const governor = await governorOf(() => [probe(), provider(), user()], { probe: { enabled: false }, provider: { enabled: false } });
    expect(await checkPlugins(environment(governor))).toEqual([
      { name: "probe", status: "skip", detail: "probe.enabled is false" },
      { name: "user", status: "skip", detail: expect.stringMatching(/^off: .*"acme:source".*acme:provider/) },
    ]);
    expect(seen).toEqual([]);
  });

  it("the start timeout is doctor.startTimeoutMs; the old doctor.kotaStartTimeoutMs still sets it, with a note", async () => {
    const { governor: kotaGovernor } = await governorWith(JSON.stringify({ doctor: { kotaStartTimeoutMs: 2_000 } }));
    expect(kotaGovernor.config.values.get("doctor")).toMatchObject({ startTimeoutMs: 2_000 });
    expect(kotaGovernor.problems().join("\n")).toMatch(/doctor\.kotaStartTimeoutMs: renamed; use doctor\.startTimeoutMs/);
  });
});

describe("the doctor plugin knows no other plugin by name", () => {
  it("mentions no plugin's own words (kota, KotaDB, Bun, blob, recall) outside the renamed key it still reads", () => {
    const dir = join(REPO_ROOT, "plugins", "doctor");
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8").replace("kotaStartTimeoutMs: { to:", "");
      expect({ file, words: text.match(/kota|\bbun\b|blob|recall/gi) ?? [] }).toEqual({ file, words: [] });
    }
  });
});

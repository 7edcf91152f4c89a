import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kotaDefaults } from "../../../../plugins/kota/config.ts";
import { checkKota, type KotaDoctorEnvironment } from "../../../../plugins/kota/doctor-checks.ts";
import { kota } from "../../../../plugins/kota/index.ts";
import { standinKotaConfig } from "../../../helpers/kota-standin.ts";

const work = mkdtempSync(join(tmpdir(), "gov-kota-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A planted environment: Bun found, KotaDB answers with 7 tools, unless `over` says otherwise. */
function environment(over: Partial<KotaDoctorEnvironment> = {}): KotaDoctorEnvironment {
  return {
    agentDir: work,
    env: { PATH: "/usr/bin" },
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
    deadlineMs: 1_000,
    ...over,
  };
}

describe("the kota plugin's doctor checks", () => {
  it("are contributed through the plugin spec, so the doctor needs no knowledge of KotaDB", () => {
    expect(typeof kota().doctorChecks).toBe("function");
  });

  it("bun found and KotaDB answering: two ok lines, the command line and the tool count", async () => {
    const results = await checkKota(kotaDefaults, environment({ startKota: async () => ({ tools: 7, serverVersion: "kotadb 2.0.0" }) }));
    expect(results).toEqual([
      { name: "bun", status: "ok", detail: "`bun` found on PATH" },
      {
        name: "kotadb",
        status: "ok",
        detail: expect.stringMatching(/^started \(`bun x kotadb@next --stdio --toolset core`\), 7 tools, version kotadb 2\.0\.0; stopped again$/),
      },
    ]);
  });

  it("bun missing: fails with the install fix and does not try to start KotaDB", async () => {
    let started = false;
    const results = await checkKota(kotaDefaults, environment({ commandExists: () => false, startKota: async () => ((started = true), { tools: 0 }) }));
    expect(results[0]).toMatchObject({ name: "bun", status: "fail" });
    expect(results[0]!.fix).toMatch(/Install Bun/);
    expect(results[1]).toMatchObject({ name: "kotadb", status: "skip" });
    expect(started).toBe(false);
  });

  it("bun missing: the fix names the no-Bun choice (the lean preset) and the real global config file", async () => {
    const agentDir = join(work, "custom-agent-dir");
    const results = await checkKota(kotaDefaults, environment({ agentDir, commandExists: () => false }));
    expect(results[0]!.fix).toContain(`"preset": "lean" in ${join(agentDir, "pi-governor.json")}`);
    expect(results[0]!.fix).not.toContain("~/.pi/agent");
  });

  it("another command: the line names kota.command", async () => {
    const [line] = await checkKota({ ...kotaDefaults, command: "no-such-kotadb-binary" }, environment({ commandExists: () => false }));
    expect(line).toMatchObject({ name: "kota.command (no-such-kotadb-binary)", status: "fail", detail: "`no-such-kotadb-binary` is not on PATH" });
  });

  it("KotaDB that does not start: fails with its error, stderr and the start hint", async () => {
    const failing = Object.assign(new Error("MCP server kota did not answer initialize within 1 s"), { stderrTail: "error: could not download kotadb@next" });
    const results = await checkKota(kotaDefaults, environment({ startKota: async () => Promise.reject(failing) }));
    const line = results.find((r) => r.name === "kotadb")!;
    expect(line.status).toBe("fail");
    expect(line.detail).toMatch(/did not answer initialize.*could not download/);
    expect(line.fix).toMatch(/bun x downloads KotaDB/);
  });

  it("KotaDB that exits at once (a registry 404): says it exited with its code, shows stderr once, and the fix for a missing package", async () => {
    const agentDir = join(work, "custom-agent-dir");
    const tail = 'error: GET https://registry.npmjs.org/kotadb - 404\nerror: package "kotadb@nope" not found';
    const exited = Object.assign(new Error(`MCP server "kota" exited with code 1 during start ('bun x kotadb@nope --stdio'). Last stderr: ${tail}`), {
      category: "spawn",
      stderrTail: tail,
    });
    const [, line] = await checkKota(kotaDefaults, environment({ agentDir, startKota: async () => Promise.reject(exited) }));
    expect(line!.status).toBe("fail");
    expect(line!.detail).toMatch(/^MCP server "kota" exited with code 1 during start/);
    expect(line!.detail).not.toMatch(/within/);
    expect(line!.detail.split("registry.npmjs.org/kotadb - 404").length - 1).toBe(1);
    expect(line!.fix).toMatch(/The npm registry has no such package or version/);
    expect(line!.fix).toContain(join(agentDir, "pi-governor.json"));
    expect(line!.fix).not.toMatch(/network|download can take longer/);
  });

  it("KotaDB that runs out of time says so, with the network and first-download hints", async () => {
    const slow = Object.assign(new Error("kota failed to start within 1 s."), { category: "timeout" });
    const [, line] = await checkKota(kotaDefaults, environment({ startKota: async () => Promise.reject(slow) }));
    expect(line!.detail).toMatch(/^did not start within 1 s: kota failed to start/);
    expect(line!.fix).toMatch(/check network access.*download can take longer than the doctor waits/);
  });

  it("through the plugin, in the real environment: the KotaDB stand-in really starts, lists its tools and is stopped", async () => {
    const config = { ...kotaDefaults, ...standinKotaConfig(), enabled: true } as Parameters<NonNullable<ReturnType<typeof kota>["doctorChecks"]>>[0];
    const results = await kota().doctorChecks!(config, { cwd: work, agentDir: join(work, "agent"), env: process.env, startTimeoutMs: 30_000 });
    expect(results.map((r) => r.status)).toEqual(["ok", "ok"]);
    expect(results[1]!.detail).toMatch(/^started .*, \d+ tools, version .*; stopped again$/);
  }, 60_000);

  it("through the plugin, in the real environment: a KotaDB command that exits at once is reported with its code and stderr", async () => {
    const config = {
      ...kotaDefaults,
      command: process.execPath,
      args: ["-e", "console.error('error: package kotadb@nope not found'); process.exit(3)"],
      enabled: true,
    };
    const results = await kota().doctorChecks!(config, { cwd: work, agentDir: join(work, "agent"), env: process.env, startTimeoutMs: 20_000 });
    expect(results[0]).toMatchObject({ name: `kota.command (${process.execPath})`, status: "ok" });
    expect(results[1]).toMatchObject({ name: "kotadb", status: "fail" });
    expect(results[1]!.detail).toMatch(/exited with code 3.*stderr: error: package kotadb@nope not found/);
    expect(results[1]!.detail).not.toMatch(/within/);
  }, 30_000);

  it("through the plugin, in the real environment: no bun on the session's PATH fails with the Bun fix and starts nothing", async () => {
    const empty = join(work, "empty-bin");
    mkdirSync(empty, { recursive: true });
    const results = await kota().doctorChecks!(
      { ...kotaDefaults, enabled: true },
      { cwd: work, agentDir: join(work, "agent"), env: { PATH: empty }, startTimeoutMs: 1_000 },
    );
    expect(results).toEqual([
      { name: "bun", status: "fail", detail: "`bun` is not on PATH", fix: expect.stringMatching(/^KotaDB needs Bun/) },
      { name: "kotadb", status: "skip", detail: "not started: its command is missing" },
    ]);
  });
});

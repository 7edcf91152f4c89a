import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chosenPreset } from "../../../../host/config/resolve.ts";
import { formatProblems, loadConfigLayers, resolveConfig, type ConfigLayer } from "pi-governor/host";
import { presets } from "../../../../presets/index.ts";

/** Every shipped plugin once, by config key (the real schemas and trusted keys). */
const shipped = [...new Map(presets.flatMap((p) => p.plugins()).map((plugin) => [plugin.configKey, plugin])).values()];
const GLOBAL = "/home/u/.pi/agent/pi-governor.json";
const PROJECT = "/repo/.pi/pi-governor.json";
const global = (data: Record<string, unknown>): ConfigLayer => ({ kind: "global", source: GLOBAL, data });
const project = (data: Record<string, unknown>): ConfigLayer => ({ kind: "project", source: PROJECT, data });

describe("what a project file may set", () => {
  it("cannot choose where the execution log's database is created", () => {
    const r = resolveConfig(shipped, [project({ executionLog: { dbPath: "/tmp/planted/evil.db", batchSize: 10 } })]);
    expect(r.values.get("executionLog")).toMatchObject({ dbPath: "", batchSize: 10 });
    expect(formatProblems(r.problems)).toEqual([
      expect.stringMatching(/^\/repo\/\.pi\/pi-governor\.json: executionLog\.dbPath: ignored: .*"allowProjectSpawnConfig": true/),
    ]);
    expect(r.ignoredTrustedKeys).toEqual([{ source: PROJECT, section: "executionLog", key: "dbPath" }]);
  });

  it("cannot shrink the retention of the blob cache every project shares", () => {
    const r = resolveConfig(shipped, [global({ blobs: { maxAgeDays: 30 } }), project({ blobs: { maxBytes: 0, maxAgeDays: 0, excerptBytes: 4096 } })]);
    expect(r.values.get("blobs")).toMatchObject({ maxBytes: 262_144_000, maxAgeDays: 30, excerptBytes: 4096 });
    expect(r.ignoredTrustedKeys.map((k) => `${k.section}.${k.key}`)).toEqual(["blobs.maxBytes", "blobs.maxAgeDays"]);
  });

  it("the global file and PI_GOVERNOR_CONFIG (the user's environment) may set trusted keys", () => {
    const r = resolveConfig(shipped, [
      global({ executionLog: { dbPath: "/home/u/log.db" } }),
      { kind: "env", source: "env PI_GOVERNOR_CONFIG", data: { kota: { command: "/opt/kotadb" }, blobs: { maxBytes: 1024 } } },
    ]);
    expect(r.problems).toEqual([]);
    expect(r.values.get("executionLog")!.dbPath).toBe("/home/u/log.db");
    expect(r.values.get("kota")!.command).toBe("/opt/kotadb");
    expect(r.values.get("blobs")!.maxBytes).toBe(1024);
  });

  it("lists each ignored trusted key with the project file that set it", () => {
    const r = resolveConfig(shipped, [global({ kota: { confirmIndex: false } }), project({ kota: { command: "./evil", args: ["x"], toolset: "core" } })]);
    expect(r.values.get("kota")).toMatchObject({ command: "bun", confirmIndex: false });
    expect(r.ignoredTrustedKeys).toEqual([
      { source: PROJECT, section: "kota", key: "command" },
      { source: PROJECT, section: "kota", key: "args" },
    ]);
    const allowed = resolveConfig(shipped, [global({ allowProjectSpawnConfig: true }), project({ kota: { command: "./evil" } })]);
    expect(allowed.ignoredTrustedKeys).toEqual([]);
    expect(allowed.values.get("kota")!.command).toBe("./evil");
  });
});

describe("ask before indexing is the user's", () => {
  it("a project may not drop the question while the user's sources ask; it may ask when the user does not", () => {
    const dropped = resolveConfig(shipped, [project({ kota: { confirmIndex: false, indexWithoutUi: "allow", toolset: "core" } })]);
    expect(dropped.values.get("kota")).toMatchObject({ confirmIndex: true, indexWithoutUi: "refuse" });
    expect(dropped.ignoredTrustedKeys.map((k) => `${k.section}.${k.key}`)).toEqual(["kota.confirmIndex", "kota.indexWithoutUi"]);
    const tighter = resolveConfig(shipped, [global({ kota: { confirmIndex: false } }), project({ kota: { confirmIndex: true } })]);
    expect(tighter.values.get("kota")).toMatchObject({ confirmIndex: true, indexWithoutUi: "refuse" });
    expect(tighter.problems).toEqual([]);
    const noUi = resolveConfig(shipped, [global({ kota: { indexWithoutUi: "allow" } }), project({ kota: { indexWithoutUi: "refuse" } })]);
    expect(noUi.values.get("kota")).toMatchObject({ confirmIndex: true, indexWithoutUi: "refuse" });
  });
});

describe("the preset is the user's choice", () => {
  it("a project's preset is ignored and reported, with or without a preset in the global file", () => {
    for (const layers of [[global({ preset: "lean" }), project({ preset: "kota" })], [global({}), project({ preset: "lean" })], [project({ preset: "mcp" })]]) {
      expect(chosenPreset(layers)).toBe(layers.length === 2 && layers[0]!.data.preset ? "lean" : undefined);
      const r = resolveConfig(shipped, layers);
      expect(r.preset).toBe(chosenPreset(layers));
      expect(r.ignoredTrustedKeys).toEqual([{ source: PROJECT, section: "", key: "preset" }]);
      expect(formatProblems(r.problems)).toEqual([
        expect.stringMatching(/^\/repo\/\.pi\/pi-governor\.json: preset: ignored: .*"allowProjectSpawnConfig": true/),
      ]);
    }
  });

  it("the environment chooses over the global file; a project only with allowProjectSpawnConfig", () => {
    expect(chosenPreset([global({ preset: "lean" }), { kind: "env", source: "env PI_GOVERNOR_PRESET", data: { preset: "mcp" } }])).toBe("mcp");
    const allowed = [global({ allowProjectSpawnConfig: true, preset: "lean" }), project({ preset: "mcp" })];
    expect(chosenPreset(allowed)).toBe("mcp");
    expect(resolveConfig(shipped, allowed).problems).toEqual([]);
  });
});

describe("one bad value drops one key", () => {
  it("keeps the rest of the section, trusted keys included, and says what is allowed", () => {
    const r = resolveConfig(shipped, [global({ kota: { indexWithoutUi: true, command: "/opt/bin/kotadb", confirmIndex: false } })]);
    expect(r.values.get("kota")).toMatchObject({ command: "/opt/bin/kotadb", confirmIndex: false, indexWithoutUi: "refuse" });
    expect(formatProblems(r.problems)).toEqual([`${GLOBAL}: kota.indexWithoutUi: true is not allowed; use "refuse" or "allow"`]);
  });

  it("works at any depth: a bad record entry drops only that entry", () => {
    const r = resolveConfig(shipped, [
      global({ timeout: { defaultMs: 60_000, perTool: { kota_index: "x", kota_search: 5_000 } } }),
      project({ breaker: { perTool: { a: { failureThreshold: 2, cooldownMs: 0 } } }, retry: { budget: { ratio: 0.5, windowMs: 1e12 } } }),
    ]);
    expect(r.values.get("timeout")).toMatchObject({ defaultMs: 60_000, perTool: { kota_search: 5_000 } });
    expect(r.values.get("breaker")).toMatchObject({ perTool: { a: { failureThreshold: 2 } } });
    expect(r.values.get("retry")).toMatchObject({ budget: { ratio: 0.5, windowMs: 60_000 } });
    expect(formatProblems(r.problems)).toEqual([
      `${GLOBAL}: timeout.perTool.kota_index: "x" is not allowed; use a number`,
      `${PROJECT}: breaker.perTool.a.cooldownMs: 0 is too small; use at least 1`,
      `${PROJECT}: retry.budget.windowMs: 1000000000000 is too large; use at most 3600000`,
    ]);
  });

  it("reports each unknown key and keeps its siblings", () => {
    const r = resolveConfig(shipped, [project({ prune: { keepRecentTurn: 3, maxToolChars: 900, adaptve: false } })]);
    expect(r.values.get("prune")!.maxToolChars).toBe(900);
    expect(formatProblems(r.problems)).toEqual([
      `${PROJECT}: prune.keepRecentTurn: unknown key (did you mean "keepRecentTurns"?)`,
      `${PROJECT}: prune.adaptve: unknown key (did you mean "adaptive"?)`,
    ]);
  });

  it("a timer interval cannot overflow setTimeout (2^31-1 ms) into a busy loop", () => {
    const r = resolveConfig(shipped, [global({ blobs: { sweepIntervalMinutes: 1e9 } })]);
    expect(r.values.get("blobs")!.sweepIntervalMinutes).toBe(30);
    expect(formatProblems(r.problems)[0]).toMatch(/blobs\.sweepIntervalMinutes: 1000000000 is too large; use at most 1440/);
  });
});

describe("rules across keys", () => {
  it("reports prune.adaptiveExitPercent above adaptiveEnterPercent with the file and the fix, and keeps the rest", () => {
    const r = resolveConfig(shipped, [global({ prune: { adaptiveEnterPercent: 40 } }), project({ prune: { adaptiveExitPercent: 60, keepRecentTurns: 4 } })]);
    const prune = r.values.get("prune")!;
    expect(prune).toMatchObject({ keepRecentTurns: 4, adaptiveEnterPercent: 25, adaptiveExitPercent: 15 });
    expect(formatProblems(r.problems)).toEqual([
      `${PROJECT}: prune.adaptiveExitPercent: adaptiveExitPercent 60 must be below adaptiveEnterPercent 40 (the gap stops adaptive mode flip-flopping); lower adaptiveExitPercent or raise adaptiveEnterPercent; using the defaults for adaptiveExitPercent and adaptiveEnterPercent`,
    ]);
  });
});

describe("byte order mark", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-bom-"));
    mkdirSync(join(root, "agent"));
    mkdirSync(join(root, "repo", ".pi"), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("a UTF-8 BOM at the start of a file or of PI_GOVERNOR_CONFIG is accepted", () => {
    writeFileSync(join(root, "agent", "pi-governor.json"), `\uFEFF${JSON.stringify({ prune: { keepRecentTurns: 3 } })}`);
    writeFileSync(
      join(root, "repo", ".pi", "pi-governor.json"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{ "blobs": { "excerptBytes": 4096 } }')]),
    );
    const { layers, problems } = loadConfigLayers({
      cwd: join(root, "repo"),
      agentDir: join(root, "agent"),
      env: { PI_GOVERNOR_CONFIG: '\uFEFF{ "timeout": { "defaultMs": 1000 } }' },
    });
    expect(problems).toEqual([]);
    const r = resolveConfig(shipped, layers);
    expect(r.problems).toEqual([]);
    expect(r.values.get("prune")!.keepRecentTurns).toBe(3);
    expect(r.values.get("blobs")!.excerptBytes).toBe(4096);
    expect(r.values.get("timeout")!.defaultMs).toBe(1000);
  });
});

describe("a bad list element", () => {
  it("drops the list (lists are replaced whole by later layers) and says so", () => {
    const r = resolveConfig(shipped, [global({ blobs: { builtinTools: ["read", 5], excerptBytes: 4096 } })]);
    const defaults = shipped.find((p) => p.configKey === "blobs")!.defaults;
    expect(r.values.get("blobs")).toMatchObject({ builtinTools: defaults.builtinTools, excerptBytes: 4096 });
    expect(formatProblems(r.problems)).toEqual([`${GLOBAL}: blobs.builtinTools.1: 5 is not allowed; use a string (the whole list is ignored)`]);
  });

  it("a section that is not an object is reported and earlier layers stay", () => {
    const r = resolveConfig(shipped, [global({ kota: { command: "/opt/k" } }), project({ kota: true })]);
    expect(r.values.get("kota")!.command).toBe("/opt/k");
    expect(formatProblems(r.problems)).toEqual([`${PROJECT}: kota: true is not allowed; use an object`]);
  });
});

describe("telemetry: switches trusted together with what they would send", () => {
  it("while the global file captures content, a project may not turn telemetry or its export on", () => {
    const r = resolveConfig(shipped, [
      global({ telemetry: { captureContent: true } }),
      project({ telemetry: { enabled: true, export: true, maxContentChars: 100 } }),
    ]);
    expect(r.values.get("telemetry")).toMatchObject({ enabled: false, export: false, captureContent: true, maxContentChars: 100 });
    expect(r.ignoredTrustedKeys).toEqual([
      { source: PROJECT, section: "telemetry", key: "enabled" },
      { source: PROJECT, section: "telemetry", key: "export" },
    ]);
    expect(formatProblems(r.problems).join("\n")).toMatch(/telemetry\.export: ignored: a project config may not choose .*what leaves the machine/);
  });

  it("without content capture a project may turn them on; the user (global, environment) always may", () => {
    expect(resolveConfig(shipped, [project({ telemetry: { enabled: true, export: true } })]).values.get("telemetry")).toMatchObject({
      enabled: true,
      export: true,
      captureContent: false,
    });
    const env: ConfigLayer = { kind: "env", source: "env PI_GOVERNOR_CONFIG", data: { telemetry: { captureContent: true, enabled: true, export: true } } };
    expect(resolveConfig(shipped, [env]).values.get("telemetry")).toMatchObject({ enabled: true, export: true, captureContent: true });
    // Capture set in the environment counts as the user's too.
    const r = resolveConfig(shipped, [project({ telemetry: { enabled: true } }), { ...env, data: { telemetry: { captureContent: true } } }]);
    expect(r.values.get("telemetry")).toMatchObject({ enabled: false, captureContent: true });
  });
});

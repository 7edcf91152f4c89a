import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor, formatProblems, loadConfigLayers, resolveConfig } from "pi-governor/host";
import { definePlugin, definePreset } from "pi-governor";

const server = definePlugin({
  name: "test:server",
  configKey: "kota",
  description: "stands for a plugin that spawns a program",
  schema: z.object({
    command: z.string(),
    args: z.array(z.string()),
    confirmIndex: z.boolean(),
    limits: z.object({ depth: z.number().int().min(1).max(3), limit: z.number().int() }),
  }),
  defaults: { command: "bun", args: ["x", "kotadb@next"], confirmIndex: true, limits: { depth: 1, limit: 15 } },
  trustedKeys: ["command", "args"],
  apply() {},
});
const prune = definePlugin({
  name: "test:prune",
  configKey: "prune",
  description: "stands for pruning",
  schema: z.object({ keepRecentTurns: z.number().int().min(0), maxToolChars: z.number().int().positive() }),
  defaults: { keepRecentTurns: 2, maxToolChars: 1200 },
  apply() {},
});
const plugins = [server(), prune()];

describe("resolveConfig", () => {
  it("layers defaults <- global <- project <- env, merging nested objects", () => {
    const r = resolveConfig(plugins, [
      { kind: "global", source: "G", data: { prune: { keepRecentTurns: 5 }, kota: { limits: { depth: 2 } } } },
      { kind: "project", source: "P", data: { prune: { maxToolChars: 800 } } },
      { kind: "env", source: "E", data: { prune: { keepRecentTurns: 1 } } },
    ]);
    expect(r.problems).toEqual([]);
    expect(r.values.get("prune")).toEqual({ enabled: true, keepRecentTurns: 1, maxToolChars: 800 });
    expect(r.values.get("kota")!.limits).toEqual({ depth: 2, limit: 15 });
    expect(r.sources).toEqual(["defaults", "G", "P", "E"]);
  });

  it("drops an invalid key, names file, key path, the value and what is allowed, and keeps earlier layers", () => {
    const r = resolveConfig(plugins, [
      { kind: "global", source: "/home/u/.pi/agent/pi-governor.json", data: { prune: { keepRecentTurns: 4 } } },
      { kind: "project", source: "/repo/.pi/pi-governor.json", data: { prune: { keepRecentTurns: "two" } } },
    ]);
    expect(r.values.get("prune")!.keepRecentTurns).toBe(4);
    const lines = formatProblems(r.problems);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('/repo/.pi/pi-governor.json: prune.keepRecentTurns: "two" is not allowed; use a number');
  });

  it("reports unknown keys and sections, nested range errors and wrong types", () => {
    const r = resolveConfig(plugins, [
      { kind: "global", source: "G", data: { prnue: {}, prune: { keepRecentTurn: 1 }, kota: { limits: { depth: 9 } }, preset: 3 } },
    ]);
    const lines = formatProblems(r.problems).join("\n");
    expect(lines).toMatch(/G: prnue: unknown section \(did you mean "prune"\?\); known: kota, prune/);
    expect(lines).toMatch(/G: prune\.keepRecentTurn: unknown key/);
    expect(lines).toMatch(/G: kota\.limits\.depth: 9 is too large; use at most 3/);
    expect(lines).toMatch(/G: preset: .*expected string/);
    expect(r.values.get("kota")!.limits).toEqual({ depth: 1, limit: 15 });
  });

  it("a project file cannot choose the spawned program unless the global config allows it", () => {
    const project = {
      kind: "project" as const,
      source: "/repo/.pi/pi-governor.json",
      data: { kota: { command: "/tmp/evil", args: ["x"], confirmIndex: false } },
    };
    const denied = resolveConfig(plugins, [project]);
    expect(denied.values.get("kota")).toMatchObject({ command: "bun", args: ["x", "kotadb@next"], confirmIndex: false });
    expect(formatProblems(denied.problems).join("\n")).toMatch(/kota\.command: ignored: a project config may not choose what program runs/);
    // The fix names the user's real global file (PI_CODING_AGENT_DIR moves it).
    const named = resolveConfig(
      plugins,
      [project, { kind: "project", source: "/repo/.pi/pi-governor.json", data: { allowProjectSpawnConfig: true } }],
      new Set(),
      "/home/u/agents/work/pi-governor.json",
    );
    expect(formatProblems(named.problems).join("\n")).toMatch(/to your global config \(\/home\/u\/agents\/work\/pi-governor\.json\)/);
    expect(formatProblems(named.problems).join("\n")).toMatch(/only the global config \(\/home\/u\/agents\/work\/pi-governor\.json\) may set this/);
    expect(formatProblems(named.problems).join("\n")).not.toContain("~/.pi/agent");

    const allowed = resolveConfig(plugins, [{ kind: "global", source: "G", data: { allowProjectSpawnConfig: true } }, project]);
    expect(allowed.values.get("kota")!.command).toBe("/tmp/evil");

    const selfAllowed = resolveConfig(plugins, [{ ...project, data: { ...project.data, allowProjectSpawnConfig: true } }]);
    expect(selfAllowed.values.get("kota")!.command).toBe("bun");
    expect(formatProblems(selfAllowed.problems).join("\n")).toMatch(/allowProjectSpawnConfig: ignored: only the global config/);
  });

  it("switches a stage off with enabled:false", () => {
    const r = resolveConfig(plugins, [{ kind: "project", source: "P", data: { prune: { enabled: false } } }]);
    expect(r.values.get("prune")!.enabled).toBe(false);
  });

  it("ignores __proto__ keys from untrusted files", () => {
    const data = JSON.parse('{"prune": {"__proto__": {"polluted": true}, "keepRecentTurns": 3}}');
    const r = resolveConfig(plugins, [{ kind: "project", source: "P", data }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(r.values.get("prune")!.keepRecentTurns).toBe(3);
  });
});

describe("loadConfigLayers and createGovernor", () => {
  let root: string;
  let agentDir: string;
  let cwd: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-config-"));
    agentDir = join(root, "agent");
    cwd = join(root, "repo");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(join(cwd, ".pi"), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("uses defaults when no file exists", () => {
    const { layers, problems } = loadConfigLayers({ cwd, agentDir, env: {} });
    expect(layers).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("names the file of malformed JSON and of a non-object, and reads env JSON and the legacy file name", () => {
    writeFileSync(join(agentDir, "pi-governor.json"), "{ not json");
    writeFileSync(join(cwd, ".pi", "pi-kota.json"), JSON.stringify({ prune: { keepRecentTurns: 3 } }));
    const { layers, problems } = loadConfigLayers({ cwd, agentDir, env: { PI_GOVERNOR_CONFIG: "[1]", PI_GOVERNOR_PRESET: "lean" } });
    expect(problems.map((p) => p.source)).toEqual([join(agentDir, "pi-governor.json"), "env PI_GOVERNOR_CONFIG"]);
    expect(problems[0]!.message).toMatch(/not valid JSON/);
    expect(problems[1]!.message).toMatch(/expected a JSON object/);
    expect(layers.map((l) => l.source)).toEqual([join(cwd, ".pi", "pi-kota.json"), "env PI_GOVERNOR_PRESET"]);
  });

  it("accepts the documented config shape (kota, blobs, prune sections as users write them)", async () => {
    const documentedShape = {
      kota: { toolset: "core", autoContext: "off", confirmIndex: true, command: "bun", args: ["x", "kotadb@next", "--stdio", "--toolset", "core"] },
      prune: { enabled: true, keepRecentTurns: 2, maxToolChars: 1200, adaptive: true, pinImpactSummaries: true },
      blobs: { enabled: true, dir: "~/.pi/cache/pi-kota/blobs", maxBytes: 262144000, maxAgeDays: 14 },
    };
    const documentedPlugins = [
      definePlugin({
        name: "s:kota",
        configKey: "kota",
        description: "",
        schema: z.object({
          toolset: z.string(),
          autoContext: z.enum(["off", "onPaths", "always"]),
          confirmIndex: z.boolean(),
          command: z.string(),
          args: z.array(z.string()),
        }),
        defaults: { toolset: "core", autoContext: "off", confirmIndex: true, command: "bun", args: [] },
        apply() {},
      })(),
      definePlugin({
        name: "s:prune",
        configKey: "prune",
        description: "",
        schema: z.object({ keepRecentTurns: z.number(), maxToolChars: z.number(), adaptive: z.boolean(), pinImpactSummaries: z.boolean() }),
        defaults: { keepRecentTurns: 2, maxToolChars: 1200, adaptive: true, pinImpactSummaries: true },
        apply() {},
      })(),
      definePlugin({
        name: "s:blobs",
        configKey: "blobs",
        description: "",
        schema: z.object({ dir: z.string(), maxBytes: z.number(), maxAgeDays: z.number() }),
        defaults: { dir: "x", maxBytes: 1, maxAgeDays: 1 },
        apply() {},
      })(),
    ];
    const r = resolveConfig(documentedPlugins, [{ kind: "global", source: "G", data: documentedShape }]);
    expect(r.problems).toEqual([]);
  });

  it("keeps running on the valid layers, applies enabled plugins in preset order and reports a failing plugin", async () => {
    writeFileSync(join(cwd, ".pi", "pi-governor.json"), JSON.stringify({ prune: { keepRecentTurns: -1 }, kota: { confirmIndex: false } }));
    const order: string[] = [];
    const failing = definePlugin({
      name: "test:failing",
      configKey: "failing",
      description: "",
      schema: z.object({}),
      defaults: {},
      apply() {
        throw new Error("cannot start");
      },
    });
    const recorder = (name: string) =>
      definePlugin({
        name: `test:${name}`,
        configKey: name,
        description: "",
        schema: z.object({}),
        defaults: {},
        apply() {
          order.push(name);
        },
      });
    const preset = definePreset({ name: "t", description: "", plugins: () => [server(), prune(), recorder("a")(), failing(), recorder("b")()] });
    const gov = await createGovernor({ preset, cwd, agentDir, env: {} });
    expect(order).toEqual(["a", "b"]);
    expect(gov.config.values.get("kota")!.confirmIndex).toBe(false);
    expect(gov.config.values.get("prune")!.keepRecentTurns).toBe(2);
    const problems = gov.problems().join("\n");
    expect(problems).toMatch(/pi-governor\.json: prune\.keepRecentTurns/);
    expect(problems).toMatch(/plugin "test:failing" failed in hook "apply": cannot start/);
    expect(gov.statusText()).toMatch(/test:failing \[failing\]: FAILED/);
  });

  it("lets config pick another known preset and reports an unknown one", async () => {
    const a = definePreset({ name: "a", description: "", plugins: () => [prune()] });
    const b = definePreset({ name: "b", description: "", plugins: () => [] });
    const picked = await createGovernor({ preset: a, presets: [b], cwd, agentDir, env: {}, layers: [{ kind: "global", source: "G", data: { preset: "b" } }] });
    expect(picked.preset.name).toBe("b");
    const unknown = await createGovernor({
      preset: a,
      presets: [b],
      cwd,
      agentDir,
      env: {},
      layers: [{ kind: "global", source: "G", data: { preset: "zzz" } }],
    });
    expect(unknown.preset.name).toBe("a");
    expect(unknown.problems().join("\n")).toMatch(/unknown preset "zzz"; known: a, b/);
    // A project file does not choose: it would pick which programs run and what is redacted.
    const project = await createGovernor({
      preset: a,
      presets: [b],
      cwd,
      agentDir,
      env: {},
      layers: [{ kind: "project", source: "P", data: { preset: "b" } }],
    });
    expect(project.preset.name).toBe("a");
    expect(project.problems().join("\n")).toMatch(/P: preset: ignored: a project config may not choose the preset/);
  });
});

describe("a misspelled config key", () => {
  it("names the key it is closest to (section keys, nested keys and sections), and only a close one", async () => {
    const { presets } = await import("../../../../presets/index.ts");
    const data = { prune: { keepRecentTurnz: 2, zzzzzz: 1 }, retry: { maxAttemps: 2 }, rerty: {} };
    const g = await createGovernor({
      preset: presets[0]!,
      presets: presets.slice(1),
      cwd: "/",
      agentDir: "/nonexistent",
      env: {},
      layers: [{ kind: "global", source: "G", data }],
    });
    const problems = g.problems();
    expect(problems).toContain('G: prune.keepRecentTurnz: unknown key (did you mean "keepRecentTurns"?)');
    expect(problems).toContain('G: retry.maxAttemps: unknown key (did you mean "maxAttempts"?)');
    expect(problems.find((p) => p.startsWith("G: rerty:"))).toMatch(/^G: rerty: unknown section \(did you mean "retry"\?\); known: /);
    expect(problems).toContain("G: prune.zzzzzz: unknown key; check the spelling (see docs/config.md)");
  });
});

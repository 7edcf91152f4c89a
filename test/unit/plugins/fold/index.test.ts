/**
 * The fold plugin as a plugin: its taps, tool and command, the `fold:ranges` service prune uses, the
 * rules prune hands over through it, prune without it, and the old `prune.fold*` keys.
 */
import { describe, expect, it } from "vitest";
import { createGovernor, formatProblems, resolveConfig } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { FOLDING } from "../../../../lib/context/index.ts";
import { FOLD_PLUGIN, FOLD_TOOL, fold } from "../../../../plugins/fold/index.ts";
import { kotaPreset } from "../../../../presets/kota/index.ts";
import { kotaPrune } from "../../../../presets/kota/prune-policy.ts";
import { harness, turn, turns, user } from "../../../helpers/prune-fold.ts";

const SUMMARY = "Read f1-f4: they export the config loader and its tests.";
const project = (data: Record<string, unknown>) => ({ kind: "project" as const, source: "/repo/.pi/pi-governor.json", data });

describe("the fold plugin", () => {
  it("taps context around pruning, registers context_fold and unfold, and provides fold:ranges", async () => {
    const preset = definePreset({ name: "t", description: "", commandRoot: "kota", plugins: () => [fold(), kotaPrune()] });
    const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [] });
    expect(g.problems()).toEqual([]);
    expect(g.pipeline.describe().context).toEqual([
      { name: "governor:prune", stage: -100 },
      { name: FOLD_PLUGIN, stage: 390 },
      { name: "governor:prune", stage: 399 },
      { name: "governor:prune", stage: 400 },
      { name: "governor:prune", stage: 401 },
      { name: FOLD_PLUGIN, stage: 450 },
    ]);
    expect([...g.pipeline.tools.keys()]).toContain(FOLD_TOOL);
    expect([...g.pipeline.commands.keys()].sort()).toEqual(["kota pin", "kota pruning", "kota unfold"]);
    expect(g.services.maybe(FOLDING)?.foldedRanges("none")).toEqual([]);
    expect(g.statusText()).toContain(`governor:prune [prune]: on · uses "blobs:store", "fold:ranges" (governor:fold)`);
  });

  it("is in every preset, right before prune (the order folding ran in when it was a part of prune)", async () => {
    const { leanPreset } = await import("../../../../presets/lean/index.ts");
    const { mcpPreset } = await import("../../../../presets/mcp/index.ts");
    for (const preset of [kotaPreset, leanPreset, mcpPreset]) {
      const names = preset.plugins().map((p) => p.name);
      expect(names.indexOf(FOLD_PLUGIN), preset.name).toBe(names.indexOf("governor:prune") - 1);
    }
  });

  it("respects prune's protected paths, handed over through the service", async () => {
    const history = [...turns(1), ...turn(2, { args: { path: "deps/yarn.lock" } }), ...turns(3, 3), user(6)];
    const protectedRun = await harness({ protectedFilePatterns: ["*.lock"] });
    await protectedRun.context(history);
    const refused = await protectedRun.fold("f6", { from: "c1", to: "c3", summary: SUMMARY });
    expect(refused.ok).toBe(false);
    expect(refused.text).toContain("turn 2 has a call on the protected path deps/yarn.lock (c2)");
    // Without prune's pattern the same range folds.
    const open = await harness();
    await open.context(history);
    expect((await open.fold("f6", { from: "c1", to: "c3", summary: SUMMARY })).ok).toBe(true);
  });

  it("leaves prune working alone: without the fold plugin prune sends what it sends with folding off", async () => {
    const history = [...turns(8), user(9)];
    const alone = await (await harness({}, { withoutFold: true })).context(structuredClone(history));
    const off = await (await harness({}, { fold: { enabled: false } })).context(structuredClone(history));
    expect(alone).toEqual(off);
    expect(alone).not.toEqual(history); // it did prune
  });

  it("reads the old prune.fold and prune.foldNudgePercent keys as fold.enabled and fold.nudgePercent, with a note", () => {
    const plugins = kotaPreset.plugins();
    const r = resolveConfig(plugins, [project({ prune: { fold: false, foldNudgePercent: 35, keepRecentTurns: 3 } })]);
    expect(r.values.get("fold")).toMatchObject({ enabled: false, nudgePercent: 35 });
    expect(r.values.get("prune")).toMatchObject({ keepRecentTurns: 3 });
    expect(r.values.get("prune")).not.toHaveProperty("fold");
    expect(formatProblems(r.problems)).toEqual([
      "/repo/.pi/pi-governor.json: prune.fold: renamed; use fold.enabled (the old spelling still works for now)",
      "/repo/.pi/pi-governor.json: prune.foldNudgePercent: renamed; use fold.nudgePercent (the old spelling still works for now)",
    ]);
    // The new spelling in the same file wins.
    const both = resolveConfig(plugins, [project({ prune: { foldNudgePercent: 35 }, fold: { nudgePercent: 60 } })]);
    expect(both.values.get("fold")).toMatchObject({ enabled: true, nudgePercent: 60 });
  });

  it("is off with prune when a file turns prune off, unless that file sets fold.enabled (folding was a part of prune)", () => {
    const plugins = kotaPreset.plugins();
    const global = (data: Record<string, unknown>) => ({ kind: "global" as const, source: "~/.pi/agent/pi-governor.json", data });
    const off = resolveConfig(plugins, [global({ prune: { enabled: false } })]);
    expect(off.values.get("prune")).toMatchObject({ enabled: false });
    expect(off.values.get("fold")).toMatchObject({ enabled: false });
    expect(off.problems).toEqual([]);
    // Said in the same file, fold.enabled wins; a later file may turn folding back on.
    expect(resolveConfig(plugins, [global({ prune: { enabled: false }, fold: { enabled: true } })]).values.get("fold")).toMatchObject({ enabled: true });
    expect(resolveConfig(plugins, [global({ prune: { enabled: false } }), project({ fold: { enabled: true } })]).values.get("fold")).toMatchObject({
      enabled: true,
    });
    // prune on, or a value that is not false: folding untouched.
    expect(resolveConfig(plugins, [global({ prune: { enabled: true } })]).values.get("fold")).toMatchObject({ enabled: true });
    expect(resolveConfig(plugins, [global({ prune: { keepRecentTurns: 3 } })]).values.get("fold")).toMatchObject({ enabled: true });
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "pi-governor";
import { formatProblems, resolveConfig } from "pi-governor/host";
import { upgradeLayer, upgradeRenamedKeys } from "../../../../core/config/renamed.ts";
import { kotaPreset } from "../../../../presets/kota/index.ts";

/** The default preset's plugins, with its defaults. */
const shipped = kotaPreset.plugins();
const layer = (data: Record<string, unknown>) => ({ kind: "project" as const, source: "/repo/.pi/pi-governor.json", data });
/** The user's global file: budget.perTool is a trusted key, which a project file may not set under either spelling. */
const userLayer = (data: Record<string, unknown>) => ({ kind: "global" as const, source: "/home/u/.pi/agent/pi-governor.json", data });

describe("renamed config keys", () => {
  it("budget.tools still loads as budget.perTool, merged onto the preset's per-tool entries, and says what to write", () => {
    const r = resolveConfig(shipped, [userLayer({ budget: { tools: { kota_search: { maxBytes: 400 } } } })]);
    const perTool = (r.values.get("budget") as unknown as { perTool: Record<string, { maxBytes?: number; caps?: unknown }> }).perTool;
    expect(perTool.kota_search!.maxBytes).toBe(400);
    expect(perTool.kota_search!.caps).toEqual({ limit: 50, context_lines: 5 }); // the preset's entry is kept
    expect(r.values.get("budget")).not.toHaveProperty("tools");
    expect(formatProblems(r.problems)).toEqual([
      "/home/u/.pi/agent/pi-governor.json: budget.tools: renamed; use budget.perTool (the old spelling still works for now)",
    ]);
  });

  it("blobs.tools still loads as blobs.perTool", () => {
    const r = resolveConfig(shipped, [layer({ blobs: { tools: { my_tool: { thresholdBytes: 1024 } } } })]);
    expect((r.values.get("blobs") as unknown as { perTool: unknown }).perTool).toEqual({ my_tool: { thresholdBytes: 1024 } });
    expect(formatProblems(r.problems)).toEqual(["/repo/.pi/pi-governor.json: blobs.tools: renamed; use blobs.perTool (the old spelling still works for now)"]);
  });

  it("a removed key (recall.blobDir) is ignored with a note saying what replaced it, not reported as unknown; the rest of the section applies", () => {
    const r = resolveConfig(shipped, [layer({ recall: { blobDir: "/old/blobs", answerBytes: 4096 } })]);
    expect(r.values.get("recall")).toMatchObject({ answerBytes: 4096 });
    expect(r.values.get("recall")).not.toHaveProperty("blobDir");
    expect(formatProblems(r.problems)).toEqual([
      "/repo/.pi/pi-governor.json: recall.blobDir: removed and ignored: recall keeps outputs in the blobs plugin's cache, where blob_read reads; set blobs.dir to move it",
    ]);
  });

  it("the doctor's start timeout: doctor.kotaStartTimeoutMs still sets doctor.startTimeoutMs", () => {
    const r = resolveConfig(shipped, [layer({ doctor: { kotaStartTimeoutMs: 3_000 } })]);
    expect(r.values.get("doctor")).toMatchObject({ startTimeoutMs: 3_000 });
    expect(formatProblems(r.problems)).toEqual([
      "/repo/.pi/pi-governor.json: doctor.kotaStartTimeoutMs: renamed; use doctor.startTimeoutMs (the old spelling still works for now)",
    ]);
  });

  it("the new spelling in the same file wins over the old one; a bad value under the old spelling is named at its new path", () => {
    const r = resolveConfig(shipped, [userLayer({ budget: { tools: { a: { maxBytes: 500 }, b: { maxBytes: 1 } }, perTool: { a: { maxBytes: 900 } } } })]);
    expect((r.values.get("budget") as unknown as { perTool: Record<string, unknown> }).perTool.a).toEqual({ maxBytes: 900 });
    const text = formatProblems(r.problems).join("\n");
    expect(text).toContain("budget.tools: renamed; use budget.perTool");
    expect(text).toContain("budget.perTool.b.maxBytes: 1 is too small; use at least 256");
  });

  it("converts the old value when its shape changed, and leaves sections without old keys alone", () => {
    const renamed = { only: { to: "list", convert: (old: unknown) => [old] } };
    const plugin = definePlugin({
      name: "t:r",
      configKey: "r",
      description: "",
      schema: z.object({ list: z.array(z.string()) }),
      defaults: { list: [] },
      renamedKeys: renamed,
      apply() {},
    })();
    const r = resolveConfig([plugin], [layer({ r: { only: "x" } })]);
    expect(r.values.get("r")).toMatchObject({ list: ["x"] });
    const same = { list: ["y"] };
    expect(upgradeRenamedKeys("r", same, renamed)).toEqual({ section: same, renamed: [] });
    expect(upgradeRenamedKeys("r", "not an object", renamed)).toEqual({ section: "not an object", renamed: [] });
  });

  it("moves a key to another plugin's section (created when the file has none); the new spelling there wins", () => {
    const rules = new Map([["old", { flag: { to: "enabled", section: "new" }, pct: { to: "percent", section: "new" }, same: { to: "kept" } }]]);
    expect(upgradeLayer({ old: { flag: false, pct: 30, same: 1, other: 2 } }, rules)).toEqual({
      data: { old: { kept: 1, other: 2 }, new: { enabled: false, percent: 30 } },
      renamed: [
        { path: "old.same", message: "renamed; use old.kept (the old spelling still works for now)" },
        { path: "old.flag", message: "renamed; use new.enabled (the old spelling still works for now)" },
        { path: "old.pct", message: "renamed; use new.percent (the old spelling still works for now)" },
      ],
    });
    expect(upgradeLayer({ old: { pct: 30 }, new: { percent: 60 } }, rules).data).toEqual({ old: {}, new: { percent: 60 } });
    // Within-section renames alone never move a key out of its section.
    expect(upgradeRenamedKeys("old", { flag: true }, rules.get("old")!)).toEqual({ section: { flag: true }, renamed: [] });
  });
});

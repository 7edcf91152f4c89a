/**
 * Two plugins on one stage of a hook where order changes what runs (toolCall, toolGate, toolResult,
 * context) are an error when the second one taps, naming both; the context slots are one table in
 * run order.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CONTEXT_STAGE, definePlugin, definePreset, Pipeline, PipelineError, TOOL_STAGE } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { redactSecrets } from "../../../docs/examples/redact-secrets-plugin.ts";
import { fold } from "../../../plugins/fold/index.ts";
import { kotaPreset } from "../../../presets/kota/index.ts";
import { leanPreset } from "../../../presets/lean/index.ts";
import { mcpPreset } from "../../../presets/mcp/index.ts";

function tieOf(tap: () => void): PipelineError {
  try {
    tap();
  } catch (error) {
    return error as PipelineError;
  }
  throw new Error("expected the tap to throw");
}

describe("a tie on an ordered hook", () => {
  it("is GOV_TAP_TIE naming both plugins, on context and on each tool hook", () => {
    const p = new Pipeline();
    p.hooks.context.tap({ name: "acme:a", stage: CONTEXT_STAGE.FOLD }, () => undefined);
    const context = tieOf(() => p.hooks.context.tap({ name: "acme:b", stage: CONTEXT_STAGE.FOLD }, () => undefined));
    expect(context).toBeInstanceOf(PipelineError);
    expect(context.code).toBe("GOV_TAP_TIE");
    expect(context.message).toContain('plugins "acme:a" and "acme:b" both tap "context" at stage 450');

    p.hooks.toolCall.tap({ name: "acme:a", stage: TOOL_STAGE.RETRY }, (next) => next);
    expect(tieOf(() => p.hooks.toolCall.tap({ name: "acme:b", stage: TOOL_STAGE.RETRY }, (next) => next)).code).toBe("GOV_TAP_TIE");
    p.hooks.toolGate.tap({ name: "acme:a" }, () => undefined);
    expect(tieOf(() => p.hooks.toolGate.tap({ name: "acme:b" }, () => undefined)).message).toContain('"toolGate" at stage 500');
    p.hooks.toolResult.tap({ name: "acme:a", stage: 7 }, () => undefined);
    expect(tieOf(() => p.hooks.toolResult.tap({ name: "acme:b", stage: 7 }, () => undefined)).code).toBe("GOV_TAP_TIE");
  });

  it("is not a tie for one plugin on its own stage, nor on the lifecycle and event hooks", () => {
    const p = new Pipeline();
    p.hooks.context.tap({ name: "acme:a", stage: 1 }, () => undefined);
    p.hooks.context.tap({ name: "acme:a", stage: 1 }, () => undefined);
    p.hooks.sessionStart.tap({ name: "acme:a" }, () => undefined);
    p.hooks.sessionStart.tap({ name: "acme:b" }, () => undefined);
    p.hooks.event.tap({ name: "acme:a", stage: 1 }, () => undefined);
    p.hooks.event.tap({ name: "acme:b", stage: 1 }, () => undefined);
    expect(p.describe().context).toEqual([
      { name: "acme:a", stage: 1 },
      { name: "acme:a", stage: 1 },
    ]);
    expect(p.describe().sessionStart!.map((t) => t.name)).toEqual(["acme:a", "acme:b"]);
  });

  it("leaves the second plugin out at apply time, and the user is told which two collide", async () => {
    const squatter = definePlugin({
      name: "acme:squatter",
      configKey: "squatter",
      description: "taps the fold slot",
      schema: z.object({}),
      defaults: {},
      apply(pipeline) {
        pipeline.hooks.context.tap({ name: "acme:squatter", stage: CONTEXT_STAGE.FOLD }, () => undefined);
      },
    });
    const preset = definePreset({ name: "t", description: "", commandRoot: "governor", plugins: () => [fold(), squatter()] });
    const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [] });
    expect(g.problems()).toEqual([expect.stringContaining('plugins "governor:fold" and "acme:squatter" both tap "context" at stage 450')]);
    expect(g.pipeline.describe().context!.map((t) => t.name)).not.toContain("acme:squatter");
  });
});

describe("the built-in presets", () => {
  it("have no tie with every plugin on, nor with the docs' example plugin added", async () => {
    const everything = [{ kind: "global" as const, source: "G", data: { telemetry: { enabled: true }, chaos: { enabled: true } } }];
    for (const preset of [kotaPreset, leanPreset, mcpPreset]) {
      const withExample = definePreset({ ...preset, plugins: () => [...preset.plugins(), redactSecrets()] });
      const g = await createGovernor({ preset: withExample, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: everything });
      expect(g.problems(), preset.name).toEqual([]);
    }
  });
});

describe("the context slots", () => {
  it("are one table in run order, each slot its own number", () => {
    const stages = Object.values(CONTEXT_STAGE);
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
    expect(new Set(stages).size).toBe(stages.length);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { definePlugin, definePreset } from "pi-governor";

const dir = mkdtempSync(join(tmpdir(), "gov-load-checks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plugin = (name: string, apply: Parameters<typeof definePlugin>[0]["apply"]) =>
  definePlugin({ name: `test:${name}`, configKey: name, description: "", schema: z.object({}), defaults: {}, apply });

describe("load checks", () => {
  it("run once after every plugin applied, with every tool sealed; their lines are warnings at load; a throw is a problem", async () => {
    const seen: string[][] = [];
    const checker = plugin("checker", (pipeline) => {
      pipeline.registerLoadCheck("test:checker", () => {
        const tools = [...pipeline.tools.keys()];
        seen.push(tools);
        return tools.includes("late_tool") ? ["late_tool is there"] : [];
      });
      pipeline.registerLoadCheck("test:checker", () => {
        throw new Error("broken check");
      });
    });
    // Applied after the checker: its tool is still seen.
    const late = plugin("late", (pipeline) =>
      pipeline.registerTool("test:late", { name: "late_tool", description: "", parameters: Type.Object({}), execute: async () => ({ content: [] }) }),
    );
    const gov = await createGovernor({
      preset: definePreset({ name: "checked", description: "", plugins: () => [checker(), late()] }),
      cwd: dir,
      agentDir: dir,
      layers: [],
    });
    expect(seen).toEqual([["late_tool"]]);
    expect(gov.degraded()).toEqual(["test:checker: late_tool is there"]);
    expect(gov.problems().join("\n")).toContain('plugin "test:checker" failed in hook "loadCheck": broken check');
    expect(() => gov.pipeline.registerLoadCheck("test:x", () => [])).toThrow();
  });
});

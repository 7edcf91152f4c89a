/**
 * After a stop, the policies gate refuses every call of the run as stopped and marks it to end the
 * run, before any rule: no ask dialog is shown, and a call the deny list refuses still ends the run.
 */
import { describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset, type ToolGateInfo, type UiBridge } from "pi-governor";
import { policies } from "../../../../plugins/policies/index.ts";

describe("a stopped run", () => {
  it("refuses every later call as stopped with terminate, without a dialog, denied calls included; a new run starts afresh", async () => {
    const preset = definePreset({ name: "t", description: "", plugins: () => [policies()] });
    const data = { policies: { limits: [{ tools: "*", perRun: 1, onExceed: "stop" }], deny: ["write"], rules: [{ tools: "bash", action: "ask" }] } };
    const gov = await createGovernor({ preset, cwd: "/", agentDir: "/nonexistent", env: {}, layers: [{ kind: "global", source: "g", data }] });
    const dialogs: string[] = [];
    const ui: UiBridge = {
      hasUI: true,
      notify: () => {},
      setStatus: () => {},
      confirm: async (title) => (dialogs.push(title), true),
      select: async (title, options) => (dialogs.push(title), options[0]),
      editor: async (title, prefill) => (dialogs.push(title), prefill),
    };
    let n = 0;
    const call = (toolName: string): Promise<{ blockReason?: string; terminate?: boolean }> =>
      gov.pipeline.hooks.toolGate.run({}, {
        toolName,
        toolCallId: `c${++n}`,
        input: {},
        governed: false,
        annotations: {},
        tool: undefined,
        sessionId: "s",
        ui,
      } satisfies ToolGateInfo);
    await gov.pipeline.hooks.runStart.run({ sessionId: "s" });
    expect(await call("read")).toEqual({});
    const stop = await call("read");
    expect(stop).toMatchObject({ terminate: true, blockReason: expect.stringMatching(/^Stopped: this run reached its limit of 1 tool calls/) });
    for (const tool of ["bash", "write", "read"]) expect(await call(tool)).toEqual(stop);
    expect(dialogs).toEqual([]);
    await gov.pipeline.hooks.runStart.run({ sessionId: "s" });
    expect((await call("write")).blockReason).toMatch(/Refused by the user's policy \(policies\.deny\)/);
  });
});

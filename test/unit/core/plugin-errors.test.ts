import { describe, expect, it } from "vitest";
import { TOOL_STAGE, contentText, Pipeline, type PluginError, textContent, type CommandContext, type PipelineEvent } from "pi-governor";
import { isPluginError } from "../../../core/errors.ts";
import { testTool } from "pi-governor/testing";

function pipeline(): { p: Pipeline; reported: PluginError[] } {
  const p = new Pipeline();
  const reported: PluginError[] = [];
  p.hooks.event.tap({ name: "t:collect", stage: 0 }, (e: PipelineEvent) => {
    if (e.type === "plugin_error") reported.push(e.error);
  });
  p.registerTool("t:tools", testTool({ name: "echo", execute: async () => ({ content: textContent("ok") }) }));
  return { p, reported };
}

const commandContext = { ui: { notify() {} }, cwd: "/", sessionId: "s" } as unknown as CommandContext;

describe("a throwing tool-call wrapper", () => {
  it("ends in an ERROR observation naming the plugin, and a bug is reported as a plugin_error", async () => {
    const { p, reported } = pipeline();
    p.hooks.toolCall.tap({ name: "t:outer", stage: TOOL_STAGE.OBSERVE }, (next) => (call) => next(call));
    p.hooks.toolCall.tap({ name: "t:buggy", stage: TOOL_STAGE.RETRY }, () => () => {
      throw new TypeError("cannot read properties of undefined");
    });
    p.seal();
    const obs = await p.callTool("echo", {});
    expect(obs.status).toBe("ERROR");
    expect(contentText(obs.content)).toMatch(
      /^echo failed \(unknown\): echo: plugin "t:buggy" failed in hook "toolCall": cannot read properties of undefined\./,
    );
    expect(reported.map((e) => `${e.pluginName}/${e.hookName}`)).toEqual(["t:buggy/toolCall"]);
  });

  it("keeps the category of what it threw (a reset connection stays network and retryable) without reporting a plugin bug", async () => {
    const { p, reported } = pipeline();
    p.hooks.toolCall.tap({ name: "t:proxy", stage: TOOL_STAGE.TRANSPORT }, () => async () => {
      throw Object.assign(new Error("socket reset"), { code: "ECONNRESET" });
    });
    p.seal();
    const obs = await p.callTool("echo", {});
    expect(obs.status === "ERROR" && obs.error.category).toBe("network");
    expect(obs.status === "ERROR" && obs.error.recoverable).toBe(true);
    expect(contentText(obs.content)).toMatch(/plugin "t:proxy"/);
    expect(reported).toEqual([]);
  });

  it("attributes a throw to the layer that threw, not to the wrappers it passes through", async () => {
    const { p } = pipeline();
    p.hooks.toolCall.tap({ name: "t:outer", stage: TOOL_STAGE.OBSERVE }, (next) => async (call) => next(call));
    p.hooks.toolCall.tap({ name: "t:inner", stage: TOOL_STAGE.ATTEMPT }, () => async () => {
      throw new Error("inner bug");
    });
    p.seal();
    expect(contentText((await p.callTool("echo", {})).content)).toMatch(/plugin "t:inner" failed in hook "toolCall": inner bug/);
  });
});

describe("Pipeline.runCommand", () => {
  it("reports a failing command with its plugin and rejects with that PluginError", async () => {
    const { p, reported } = pipeline();
    p.registerCommand("acme:ops", "governor explode", {
      description: "",
      handler: async () => {
        throw new Error("nothing to explode");
      },
    });
    p.seal();
    const failure = await p.runCommand("governor explode", "", commandContext).catch((e: unknown) => e);
    expect(isPluginError(failure)).toBe(true);
    expect((failure as PluginError).message).toBe('plugin "acme:ops" failed in command /governor explode: nothing to explode');
    expect(reported).toEqual([failure]);
  });

  it("explains an unknown command", async () => {
    const { p } = pipeline();
    p.seal();
    await expect(p.runCommand("governor nope", "", commandContext)).rejects.toThrow(/no command "\/governor nope"/);
  });
});

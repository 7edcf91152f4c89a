import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createExtension } from "pi-governor/host";
import { TOOL_STAGE, definePlugin, definePreset, PluginError, textContent } from "pi-governor";
import { startPiSession } from "../helpers/pi-session.ts";

/**
 * A plugin that fails in each place a plugin can: a tool that throws a PluginError, a tool-call
 * wrapper whose handler throws, and a slash command whose handler throws. Driven through the real pi
 * SDK: the model and the user must see what failed and which plugin it was.
 */
const broken = definePlugin({
  name: "acme:broken",
  configKey: "broken",
  description: "fails on purpose",
  schema: z.object({}),
  defaults: {},
  apply(pipeline, _config, services) {
    pipeline.registerTool("acme:broken", {
      name: "lookup",
      description: "throws a PluginError from a helper plugin",
      parameters: Type.Object({}),
      execute: async () => {
        throw new PluginError("acme:cache", "read", new Error("cache file is locked"));
      },
    });
    pipeline.registerTool("acme:broken", {
      name: "audited",
      description: "fine, but its wrapper is not",
      parameters: Type.Object({}),
      execute: async () => ({ content: textContent("ok") }),
    });
    pipeline.hooks.toolCall.tap({ name: "acme:audit", stage: TOOL_STAGE.OBSERVE }, (next, tool) =>
      tool.name === "audited"
        ? async () => {
            throw new Error("audit log is read-only");
          }
        : next,
    );
    pipeline.registerCommand("acme:broken", `${services.commandRoot} explode`, {
      description: "always fails",
      handler: () => {
        throw new Error("nothing to explode");
      },
    });
  },
});
const preset = definePreset({ name: "t", description: "", plugins: () => [broken()] });

type ToolResult = {
  role: "toolResult";
  toolName: string;
  isError: boolean;
  content: Array<{ text: string }>;
  details: { error: { code: string; category: string } };
};

describe("plugin failures in a real pi session", () => {
  it("a tool throwing a PluginError and a throwing wrapper reach the model naming the plugin, and the agent goes on", async () => {
    const pi = await startPiSession({
      extensions: [createExtension(preset, { governorOptions: { layers: [] } })],
      responses: [
        fauxAssistantMessage([fauxToolCall("lookup", {}), fauxToolCall("audited", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("carried on")]),
      ],
    });
    try {
      await pi.session.prompt("look it up");
      const results = pi.session.messages.filter((m) => m.role === "toolResult") as unknown as ToolResult[];
      const lookup = results.find((r) => r.toolName === "lookup")!;
      expect(lookup.isError).toBe(true);
      expect(lookup.content[0]!.text).toBe(
        'lookup failed (unknown): lookup: plugin "acme:cache" failed in hook "read": cache file is locked. An unexpected error occurred. Try a different approach or tell the user.',
      );
      expect(lookup.details.error).toMatchObject({ code: "GOV_UNKNOWN", category: "unknown" });
      const audited = results.find((r) => r.toolName === "audited")!;
      expect(audited.isError).toBe(true);
      expect(audited.content[0]!.text).toMatch(/^audited failed \(unknown\): audited: plugin "acme:audit" failed in hook "toolCall": audit log is read-only\./);
      const last = pi.session.messages.at(-1) as { role: string; content: Array<{ text?: string }> };
      expect(last.content[0]!.text).toBe("carried on");
    } finally {
      await pi.dispose();
    }
  });

  it("a failing command names its plugin to the user and is listed under /governor status problems", async () => {
    const pi = await startPiSession({
      ui: true,
      extensions: [createExtension(preset, { governorOptions: { layers: [] } })],
      responses: [fauxAssistantMessage([fauxText("ok")])],
    });
    try {
      await pi.session.prompt("/governor explode now");
      const failed = pi.ui.notifications.at(-1)!;
      expect(failed).toEqual({ level: "error", message: 'plugin "acme:broken" failed in command /governor explode: nothing to explode' });
      await pi.session.prompt("/governor status");
      expect(pi.ui.notifications.at(-1)!.message).toMatch(/Problems \(1\)[\s\S]*plugin "acme:broken" failed in command \/governor explode: nothing to explode/);
    } finally {
      await pi.dispose();
    }
  });
});

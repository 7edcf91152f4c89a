import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createExtension } from "pi-governor/host";
import { definePlugin, definePreset, LIFECYCLE_STAGE, textContent } from "pi-governor";
import { startPiSession } from "../helpers/pi-session.ts";

/**
 * A plugin's run and turn lifecycle taps in a real pi session (pi's SDK, the faux provider): each
 * turn's `turnStart` and `turnEnd` fire in order with the same turn index, and `turnEnd` counts the
 * turn's tool results.
 */
function recordingPreset(seen: string[]) {
  const recorder = definePlugin({
    name: "acme:turns",
    configKey: "turns",
    description: "records the run and turn lifecycle",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.registerTool("acme:turns", {
        name: "probe",
        description: "answers ok",
        parameters: Type.Object({}),
        execute: async () => ({ content: textContent("ok") }),
      });
      const stage = LIFECYCLE_STAGE.OBSERVE;
      pipeline.hooks.runStart.tap({ name: "acme:turns", stage }, () => void seen.push("run"));
      pipeline.hooks.turnStart.tap({ name: "acme:turns", stage }, ({ turnIndex }) => void seen.push(`start ${turnIndex}`));
      pipeline.hooks.turnEnd.tap({ name: "acme:turns", stage }, ({ turnIndex, toolResults, sessionId }) => {
        seen.push(`end ${turnIndex}: ${toolResults} tool results${sessionId ? "" : " (no session id)"}`);
      });
    },
  });
  return definePreset({ name: "turns", description: "", plugins: () => [recorder()] });
}

describe("turn lifecycle hooks in a real pi session", () => {
  it("fire turnStart and turnEnd once per turn with matching indexes and the tool result count", async () => {
    const seen: string[] = [];
    const pi = await startPiSession({
      extensions: [createExtension(recordingPreset(seen), { governorOptions: { layers: [] } })],
      responses: [
        fauxAssistantMessage([fauxToolCall("probe", {}), fauxToolCall("probe", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("probe", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
        fauxAssistantMessage([fauxText("again")]),
      ],
    });
    try {
      await pi.session.prompt("probe twice, then once");
      await pi.session.prompt("and answer");
      expect(seen).toEqual([
        "run",
        "start 0",
        "end 0: 2 tool results",
        "start 1",
        "end 1: 1 tool results",
        "start 2",
        "end 2: 0 tool results",
        "run",
        "start 0",
        "end 0: 0 tool results",
      ]);
      // The observer adds nothing to the session (pi 1.x keeps its own system messages too).
      expect(pi.session.messages.map((m): string => m.role).filter((role) => role !== "system")).toEqual([
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
      ]);
    } finally {
      await pi.dispose();
    }
  });
});

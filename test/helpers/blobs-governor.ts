import { createGovernor, observationDetails } from "pi-governor/host";
import { definePreset, textContent, type ContentBlock, type Governor, type ToolResultValue, type UiBridge } from "pi-governor";
import { blobs } from "../../plugins/blobs/index.ts";
import { budget } from "../../plugins/budget/index.ts";
import { oneToolPlugin } from "pi-governor/testing";

/** A tool plugin whose `emit` tool answers with whatever text the test puts in `outputs`. */
export function emitterPlugin(outputs: { text: string; details?: Record<string, unknown> }) {
  return oneToolPlugin(
    {
      name: "emit",
      description: "returns the configured text",
      execute: async () => ({ content: textContent(outputs.text), ...(outputs.details ? { details: outputs.details } : {}) }),
    },
    { name: "test:emitter", configKey: "emitter", description: "answers with the test's text" },
  );
}

/** A UI that records notifications and answers confirmations with `answer`. */
export function recordingUi(hasUI = true, answer = true): UiBridge & { notes: Array<{ message: string; level?: string }>; confirms: string[] } {
  const notes: Array<{ message: string; level?: string }> = [];
  const confirms: string[] = [];
  return {
    hasUI,
    notes,
    confirms,
    notify: (message, level) => void notes.push({ message, ...(level ? { level } : {}) }),
    setStatus: () => {},
    confirm: async (title) => {
      confirms.push(title);
      return answer;
    },
  };
}

/** A governor with the blobs plugin (and optionally budget) configured from `config`, plus the emitter. */
export async function blobsGovernor(
  config: Record<string, unknown>,
  outputs: { text: string; details?: Record<string, unknown> },
  options: { withBudget?: boolean; commandRoot?: string } = {},
): Promise<Governor> {
  const preset = definePreset({
    name: "test-blobs",
    description: "",
    ...(options.commandRoot ? { commandRoot: options.commandRoot } : {}),
    plugins: () => [...(options.withBudget ? [budget()] : []), blobs(), emitterPlugin(outputs)()],
  });
  return createGovernor({ preset, cwd: "/", agentDir: "/nonexistent", env: {}, layers: [{ kind: "global", source: "test", data: config }] });
}

/** Calls a governed tool and runs the toolResult hook on its answer, as the pi adapter does. */
export async function callAndShape(gov: Governor, toolName: string, args: Record<string, unknown> = {}): Promise<ToolResultValue> {
  const obs = await gov.pipeline.callTool(toolName, args);
  return shape(gov, { toolName, toolCallId: "c1", input: args, content: obs.content, details: observationDetails(obs), isError: obs.status !== "SUCCESS" });
}

/** Runs the toolResult hook on a result, as the pi adapter does (tool info for governed tools). */
export function shape(gov: Governor, value: ToolResultValue): Promise<ToolResultValue> {
  return gov.pipeline.hooks.toolResult.run(value, { tool: gov.pipeline.tools.get(value.toolName)?.info, sessionId: "s" });
}

/** The text of a content list. */
export function textOf(content: readonly ContentBlock[]): string {
  return content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

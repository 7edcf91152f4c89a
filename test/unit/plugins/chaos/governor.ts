/**
 * A governor for the chaos unit tests: createGovernor with execution of a local tool behind retry,
 * timeout and chaos, config from a global layer (and optionally a project layer).
 */
import { Type } from "typebox";
import { z } from "zod";
import { createGovernor, type ConfigLayer } from "pi-governor/host";
import { definePlugin, definePreset, type Governor, type PipelineEvent, type ToolAnnotations, type ToolCallContext, type ToolExecuteResult } from "pi-governor";
import { CountingClock } from "../../../helpers/counting-clock.ts";
import { chaos } from "../../../../plugins/chaos/index.ts";
import { retry } from "../../../../plugins/retry/index.ts";
import { timeout } from "../../../../plugins/timeout/index.ts";

/** One test tool: its name, annotations and body. */
export interface TestTool {
  name: string;
  annotations?: ToolAnnotations;
  body?: (call: ToolCallContext) => Promise<ToolExecuteResult>;
}

/** The built governor, executions per tool at the transport, and every pipeline event. */
export interface ChaosGovernor {
  gov: Governor;
  executions: Map<string, number>;
  clock: CountingClock;
  events: PipelineEvent[];
  close(): Promise<void>;
}

/** Builds the stack (retry -> timeout -> chaos -> tools) with `chaosConfig` as the global `chaos` section. */
export async function chaosGovernor(tools: TestTool[], config: Record<string, unknown>, projectLayer?: Record<string, unknown>): Promise<ChaosGovernor> {
  const executions = new Map<string, number>();
  const events: PipelineEvent[] = [];
  const toolsPlugin = definePlugin({
    name: "test:tools",
    configKey: "testTools",
    description: "tools for the chaos tests",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.event.tap({ name: "test:events" }, (e) => {
        if (e.type === "custom") events.push(e);
      });
      for (const t of tools) {
        pipeline.registerTool("test:tools", {
          name: t.name,
          description: t.name,
          parameters: Type.Object({}, { additionalProperties: true }),
          ...(t.annotations ? { annotations: t.annotations } : {}),
          async execute(call) {
            executions.set(t.name, (executions.get(t.name) ?? 0) + 1);
            return t.body ? t.body(call) : { content: [{ type: "text", text: `${t.name} ok` }] };
          },
        });
      }
    },
  });
  const preset = definePreset({ name: "chaos-test", description: "chaos test stack", plugins: () => [retry(), timeout(), toolsPlugin(), chaos()] });
  const layers: ConfigLayer[] = [{ kind: "global", source: "global", data: config }];
  if (projectLayer) layers.push({ kind: "project", source: "project", data: projectLayer });
  const clock = new CountingClock();
  const gov = await createGovernor({ preset, cwd: process.cwd(), agentDir: "/nonexistent-agent-dir", layers, clock });
  return {
    gov,
    executions,
    clock,
    events,
    close: () => gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: process.cwd(), reason: "quit" }),
  };
}

/** Tools marked safe to retry. */
export const SAFE: ToolAnnotations = { readOnlyHint: true };

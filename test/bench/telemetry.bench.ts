/**
 * Per-call cost of the telemetry plugin on a governed call (breaker, retry, timeout around a trivial
 * tool), against the same stack without the plugin, in the same run: telemetry off (target: within
 * noise, ratio <= 1.10), on with no SDK registered (@opentelemetry/api no-ops), and on with OTLP export
 * to a local receiver, to a collector that accepts and never answers, and to a closed port (target:
 * an unreachable collector costs no more than a working one, ratio <= 1.25 against it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { z } from "zod";
import { createGovernor } from "../../host/index.ts";
import { definePlugin, definePreset, textContent, type Governor } from "../../core/index.ts";
import { breaker } from "../../plugins/circuit-breaker/index.ts";
import { retry } from "../../plugins/retry/index.ts";
import { telemetry } from "../../plugins/telemetry/index.ts";
import { timeout } from "../../plugins/timeout/index.ts";
import { closedPort, startBlackhole, startOtlpReceiver } from "../helpers/otlp-receiver.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";

const ITERATIONS = 3_000;
const content = textContent("ok");

const tool = definePlugin({
  name: "bench:tool",
  configKey: "benchTool",
  description: "one trivial tool",
  schema: z.object({}),
  defaults: {},
  apply(pipeline) {
    pipeline.registerTool("bench:tool", {
      name: "noop",
      description: "",
      parameters: Type.Object({}),
      annotations: { readOnlyHint: true },
      execute: async () => ({ content }),
    });
  },
});

async function governor(dir: string, withPlugin: boolean, config: Record<string, unknown> = {}): Promise<Governor> {
  const preset = definePreset({ name: "bench", description: "", plugins: () => [...(withPlugin ? [telemetry()] : []), breaker(), retry(), timeout(), tool()] });
  return createGovernor({
    preset,
    cwd: dir,
    agentDir: dir,
    env: {},
    layers: [{ kind: "global", source: "bench", data: withPlugin ? { telemetry: config } : {} }],
  });
}

async function perCall(gov: Governor, iterations: number): Promise<number> {
  let i = 0;
  return nsPerCall(
    async () => {
      const obs = await gov.pipeline.callTool("noop", {}, { toolCallId: `c${i++}`, sessionId: "s" });
      if (obs.status !== "SUCCESS") throw new Error("bench tool failed");
    },
    iterations,
    { warmup: 0, rounds: 1 },
  );
}

/** Measures every governor in turn, round after round (load on a shared machine hits all alike); median per governor. */
async function interleaved(govs: Governor[], rounds = 7): Promise<number[]> {
  for (const gov of govs) await perCall(gov, 500);
  const samples = govs.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) for (let g = 0; g < govs.length; g++) samples[g]!.push(await perCall(govs[g]!, ITERATIONS));
  return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]!);
}

const suite: BenchSuite = async (report) => {
  const dir = mkdtempSync(join(tmpdir(), "telemetry-bench-"));
  const receiver = await startOtlpReceiver();
  const hole = await startBlackhole();
  const closed = await closedPort();
  try {
    const exportTo = (endpoint: string) => ({ enabled: true, export: true, endpoint, flushTimeoutMs: 200, exportTimeoutMs: 2_000 });
    const govs = await Promise.all([
      governor(dir, false),
      governor(dir, true, { enabled: false }),
      governor(dir, true, { enabled: true }),
      governor(dir, true, exportTo(receiver.url)),
      governor(dir, true, exportTo(hole.url)),
      governor(dir, true, exportTo(closed)),
    ]);
    const [baseline, off, noSdk, working, hung, refused] = await interleaved(govs);
    report({ name: "governed call, no telemetry plugin (baseline)", value: `${formatNs(baseline!)}/call` });
    report({
      name: "telemetry off",
      value: `${formatNs(off!)}/call`,
      ratio: off! / baseline!,
      note: "x baseline (target <= 1.10)",
      pass: off! / baseline! <= 1.1,
    });
    report({ name: "telemetry on, no SDK registered", value: `${formatNs(noSdk!)}/call`, ratio: noSdk! / baseline!, note: "x baseline" });
    report({ name: "telemetry on, OTLP export to a local receiver", value: `${formatNs(working!)}/call`, ratio: working! / baseline!, note: "x baseline" });
    report({
      name: "export to a collector that never answers",
      value: `${formatNs(hung!)}/call`,
      ratio: hung! / working!,
      note: "x working collector (target <= 1.25)",
      pass: hung! / working! <= 1.25,
    });
    report({
      name: "export to a closed port",
      value: `${formatNs(refused!)}/call`,
      ratio: refused! / working!,
      note: "x working collector (target <= 1.25)",
      pass: refused! / working! <= 1.25,
    });
    for (const [i, what] of [
      [3, "working"],
      [4, "never answers"],
      [5, "closed port"],
    ] as const) {
      const started = performance.now();
      await govs[i]!.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
      report({ name: `session shutdown flush, ${what} (bound 200 ms)`, value: `${(performance.now() - started).toFixed(0)} ms` });
    }
    report({ name: "spans the local receiver got", value: String(receiver.spans.length), note: "the rest dropped at the 2048-span queue limit by design" });
  } finally {
    await receiver.close();
    await hole.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
export default suite;

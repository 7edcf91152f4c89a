/**
 * Per-call overhead of a sealed pipeline with N no-op wrap plugins, against calling the same tool
 * function directly, in the same run.
 */
import { Pipeline, textContent, type ToolObservation } from "../../core/index.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";
import { testTool } from "../../testing/index.ts";

const ITERATIONS = 50_000;
const content = textContent("ok");
const execute = async () => ({ content });

function sealedWith(wrappers: number): Pipeline {
  const p = new Pipeline();
  p.registerTool("bench:tool", testTool({ name: "noop", execute }));
  for (let i = 0; i < wrappers; i++) {
    p.hooks.toolCall.tap({ name: `bench:noop-${i}`, stage: i }, (next) => (call) => next(call));
  }
  p.seal();
  return p;
}

const suite: BenchSuite = async (report) => {
  const direct = await nsPerCall(() => execute(), ITERATIONS);
  report({ name: "direct call (baseline)", value: `${formatNs(direct)}/call` });
  const results = new Map<number, number>();
  for (const n of [0, 1, 5, 10]) {
    const p = sealedWith(n);
    const args = {};
    let last: ToolObservation | undefined;
    const perCall = await nsPerCall(async () => {
      last = await p.callTool("noop", args);
    }, ITERATIONS);
    if (last?.status !== "SUCCESS") throw new Error("bench tool failed");
    report({ name: `pipeline, ${n} no-op wrappers`, value: `${formatNs(perCall)}/call`, ratio: perCall / direct, note: "x direct call" });
    results.set(n, perCall);
  }
  const perLayer = (results.get(10)! - results.get(0)!) / 10;
  report({ name: "cost per no-op wrapper layer", value: `${formatNs(Math.max(perLayer, 0))}/call` });
};
export default suite;

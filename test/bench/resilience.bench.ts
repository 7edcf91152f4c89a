/**
 * Per-call overhead of pi-governor's timeout + retry + breaker stack (a sealed Pipeline) against
 * cockatiel's `wrap(retry, timeout)` around the same in-process async function, and a plain await,
 * in the same run. Target: our stack at least 4x cheaper per call than cockatiel's pair.
 *
 * Overhead = time per call minus the plain await. Both stacks run the same function through their
 * happy path (no failures), which is what every successful tool call pays.
 */
import { ExponentialBackoff, handleAll, retry as cockatielRetry, timeout as cockatielTimeout, TimeoutStrategy, wrap } from "cockatiel";
import { Pipeline, systemClock, TOOL_STAGE, textContent, type ToolObservation } from "../../core/index.ts";
import { breakerDefaults, breakerWrapper } from "../../plugins/circuit-breaker/index.ts";
import { retryDefaults, retryWrapper } from "../../plugins/retry/index.ts";
import { attemptTimeoutWrapper, TOOL_TIMEOUT_MS } from "../../plugins/timeout/index.ts";
import { timeoutDefaults } from "../../plugins/timeout/config.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";
import { testTool } from "../../testing/index.ts";

const ITERATIONS = 50_000;
const TARGET = 4;
const content = textContent("ok");
/** The function every variant runs. */
const work = async () => ({ content });

function governedStack(): Pipeline {
  const p = new Pipeline();
  p.registerTool("bench:tool", testTool({ name: "work", annotations: { readOnlyHint: true }, execute: work }));
  p.hooks.toolCall.tap({ name: "bench:breaker", stage: TOOL_STAGE.BREAKER }, breakerWrapper(breakerDefaults, { clock: systemClock }).wrapper);
  p.hooks.toolCall.tap({ name: "bench:retry", stage: TOOL_STAGE.RETRY }, retryWrapper(retryDefaults, { clock: systemClock }));
  p.hooks.toolCall.tap({ name: "bench:timeout", stage: TOOL_STAGE.ATTEMPT }, attemptTimeoutWrapper(timeoutDefaults, systemClock));
  p.seal();
  return p;
}

function bareStack(): Pipeline {
  const p = new Pipeline();
  p.registerTool("bench:tool", testTool({ name: "work", execute: work }));
  p.seal();
  return p;
}

/** Rounds; each measures every variant once, interleaved, so all see the same machine load. */
const ROUNDS = 7;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const suite: BenchSuite = async (report) => {
  // cockatiel's maxAttempts counts retries: 2 retries = our default of 3 attempts. Same 300 s limit.
  const policy = wrap(
    cockatielRetry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }),
    cockatielTimeout(TOOL_TIMEOUT_MS, TimeoutStrategy.Cooperative),
  );
  const bare = bareStack();
  const governed = governedStack();
  const args = {};
  let last: ToolObservation | undefined;
  const variants = {
    plain: () => work(),
    cockatiel: () => policy.execute(() => work()),
    bare: () => bare.callTool("work", args),
    ours: async () => {
      last = await governed.callTool("work", args);
    },
  };
  const samples: Record<keyof typeof variants, number[]> = { plain: [], cockatiel: [], bare: [], ours: [] };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const warmup = round === 0 ? 5_000 : 500;
    const ns = {} as Record<keyof typeof variants, number>;
    for (const key of Object.keys(variants) as Array<keyof typeof variants>) {
      ns[key] = await nsPerCall(variants[key], ITERATIONS / 5, { warmup, rounds: 1 });
      samples[key].push(ns[key]);
    }
    ratios.push((ns.cockatiel - ns.plain) / Math.max(1, ns.ours - ns.plain));
  }
  if (last?.status !== "SUCCESS") throw new Error("governed bench call failed");
  const plain = median(samples.plain);
  const cockatiel = median(samples.cockatiel);
  const bareNs = median(samples.bare);
  const ours = median(samples.ours);
  report({ name: "plain await (baseline)", value: `${formatNs(plain)}/call` });
  report({ name: "cockatiel wrap(retry, timeout)", value: `${formatNs(cockatiel)}/call`, ratio: cockatiel / plain, note: "x plain await" });
  report({ name: "pipeline, no plugins", value: `${formatNs(bareNs)}/call`, ratio: bareNs / plain, note: "x plain await" });
  report({ name: "pipeline + breaker + retry + timeout", value: `${formatNs(ours)}/call`, ratio: ours / plain, note: "x plain await" });
  const ratio = median(ratios);
  report({
    name: "overhead: cockatiel / ours",
    value: `${formatNs(cockatiel - plain)} vs ${formatNs(ours - plain)}`,
    ratio,
    note: `x cheaper than cockatiel per call, whole pipeline included; median of ${ROUNDS} interleaved rounds, min ${Math.min(...ratios).toFixed(2)} (target >= ${TARGET})`,
    pass: ratio >= TARGET,
  });
  const stackOnly = (cockatiel - plain) / Math.max(1, ours - bareNs);
  report({
    name: "overhead: cockatiel / our three layers only",
    value: `${formatNs(ours - bareNs)}`,
    ratio: stackOnly,
    note: "x cheaper, pipeline's own cost excluded",
  });
};
export default suite;

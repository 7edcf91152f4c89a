/**
 * Per-call overhead of pi-governor's timeout + retry + breaker stack (a sealed Pipeline) against
 * cockatiel's `wrap(retry, timeout)` around the same in-process async function, and a plain await,
 * in the same run. Target: our stack at least 4x cheaper per call than cockatiel's pair.
 *
 * Overhead = time per call minus the plain await. Both stacks run the same function through their
 * happy path (no failures), which is what every successful tool call pays.
 */
import { ExponentialBackoff, handleAll, retry as cockatielRetry, timeout as cockatielTimeout, TimeoutStrategy, wrap } from "cockatiel";
import { Type } from "typebox";
import { Pipeline, STAGE, systemClock, textContent, type ToolObservation } from "../../core/index.ts";
import { breakerDefaults, breakerWrapper } from "../../plugins/circuit-breaker/index.ts";
import { retryDefaults, retryWrapper } from "../../plugins/retry/index.ts";
import { attemptTimeoutWrapper, TOOL_TIMEOUT_MS } from "../../plugins/timeout/index.ts";
import { timeoutDefaults } from "../../plugins/timeout/config.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";

const ITERATIONS = 50_000;
const TARGET = 4;
const content = textContent("ok");
/** The function every variant runs. */
const work = async () => ({ content });

function governedStack(): Pipeline {
  const p = new Pipeline();
  p.registerTool("bench:tool", { name: "work", description: "", parameters: Type.Object({}), annotations: { readOnlyHint: true }, execute: work });
  p.hooks.toolCall.tap({ name: "bench:breaker", stage: STAGE.BREAKER }, breakerWrapper(breakerDefaults, { clock: systemClock }).wrapper);
  p.hooks.toolCall.tap({ name: "bench:retry", stage: STAGE.RETRY }, retryWrapper(retryDefaults, { clock: systemClock }));
  p.hooks.toolCall.tap({ name: "bench:timeout", stage: STAGE.ATTEMPT }, attemptTimeoutWrapper(timeoutDefaults, systemClock));
  p.seal();
  return p;
}

function bareStack(): Pipeline {
  const p = new Pipeline();
  p.registerTool("bench:tool", { name: "work", description: "", parameters: Type.Object({}), execute: work });
  p.seal();
  return p;
}

const suite: BenchSuite = async (report) => {
  const plain = await nsPerCall(() => work(), ITERATIONS);
  report({ name: "plain await (baseline)", value: `${formatNs(plain)}/call` });

  const policy = wrap(cockatielRetry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }), cockatielTimeout(TOOL_TIMEOUT_MS, TimeoutStrategy.Cooperative));
  const cockatiel = await nsPerCall(() => policy.execute(() => work()), ITERATIONS);
  report({ name: "cockatiel wrap(retry, timeout)", value: `${formatNs(cockatiel)}/call`, ratio: cockatiel / plain, note: "x plain await" });

  const bare = bareStack();
  const args = {};
  const bareNs = await nsPerCall(() => bare.callTool("work", args), ITERATIONS);
  report({ name: "pipeline, no plugins", value: `${formatNs(bareNs)}/call`, ratio: bareNs / plain, note: "x plain await" });

  const governed = governedStack();
  let last: ToolObservation | undefined;
  const ours = await nsPerCall(async () => {
    last = await governed.callTool("work", args);
  }, ITERATIONS);
  if (last?.status !== "SUCCESS") throw new Error("governed bench call failed");
  report({ name: "pipeline + breaker + retry + timeout", value: `${formatNs(ours)}/call`, ratio: ours / plain, note: "x plain await" });

  const ratio = (cockatiel - plain) / Math.max(1, ours - plain);
  report({
    name: "overhead: cockatiel / ours",
    value: `${formatNs(cockatiel - plain)} vs ${formatNs(ours - plain)}`,
    ratio,
    note: `x cheaper than cockatiel per call, whole pipeline included (target >= ${TARGET})`,
    pass: ratio >= TARGET,
  });
  const stackOnly = (cockatiel - plain) / Math.max(1, ours - bareNs);
  report({ name: "overhead: cockatiel / our three layers only", value: `${formatNs(ours - bareNs)}`, ratio: stackOnly, note: "x cheaper, pipeline's own cost excluded" });
};
export default suite;

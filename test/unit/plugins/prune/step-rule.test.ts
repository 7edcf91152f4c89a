import { describe, expect, it } from "vitest";
import { PREVIOUS_STEP_DEFAULTS, pruneDefaults, RESULT_ONLY_PRUNING } from "../../../../plugins/prune/config.ts";
import {
  CHEAP_REGIME_SHARE,
  decideStep,
  FORCE_RAMP_END,
  forcedStepMinTokens,
  minStepSize,
  rewriteCost,
  rewriteEstimates,
  rewriteTokens,
} from "../../../../plugins/prune/step-rule.ts";

const options = { forceStepPercent: 50, minStepTokens: 1000, cacheAware: true };
const input = { pending: 2000, sent: 50_000, rewrite: 48_000, window: 200_000, carry: 0 };

describe("step rule", () => {
  it("does not step for nothing or below minStepTokens", () => {
    expect(decideStep({ ...input, pending: 0 }, options).step).toBe(false);
    expect(decideStep({ ...input, pending: 999 }, options)).toEqual({ step: false, carry: 0 });
  });

  it("with minStepPercent, a step must also free that share of the prompt (long prompts step rarely)", () => {
    const eager = { ...options, cacheAware: false, minStepPercent: 25 };
    expect(minStepSize(10_000, eager)).toBe(2500);
    expect(minStepSize(2_000, eager)).toBe(1000);
    expect(decideStep({ ...input, pending: 12_499 }, eager).step).toBe(false);
    expect(decideStep({ ...input, pending: 12_500 }, eager).step).toBe(true);
    // Today's rule: minStepTokens alone.
    expect(decideStep({ ...input, pending: 1000 }, { ...eager, minStepPercent: 0 }).step).toBe(true);
    expect(RESULT_ONLY_PRUNING.minStepPercent).toBe(0);
  });

  it("accumulates carry at the cached rate and steps once it covers one rewrite", () => {
    let carry = 0;
    let calls = 0;
    for (;;) {
      const d = decideStep({ ...input, carry }, options);
      calls++;
      if (d.step) {
        expect(d.carry).toBe(0);
        break;
      }
      carry = d.carry;
    }
    // 0.1 x 2,000 per call against 1.15 x 48,000 - 0.1 x 2,000 = 55,000: 275 calls.
    expect(calls).toBe(275);
  });

  it("steps at once when the rewrite is cheap, and without cacheAware as soon as the step is big enough", () => {
    expect(decideStep({ ...input, rewrite: 100 }, options).step).toBe(true);
    expect(decideStep(input, { ...options, cacheAware: false }).step).toBe(true);
  });

  it("steps regardless of cost above forceStepPercent of the window", () => {
    expect(decideStep({ ...input, pending: 10, sent: 100_000 }, options).step).toBe(true);
  });

  it("estimates the rewrite: the suffix within the lookback, the whole prompt beyond it", () => {
    const messages = Array.from({ length: 30 }, () => ({ chars: 400, blocks: 1 }));
    expect(rewriteTokens(messages, 25, 40_000, 0)).toBe(500); // 5 messages x 400 chars / 4
    expect(rewriteTokens(messages, 25, 40_000, 200)).toBe(450);
    expect(rewriteTokens(messages, 2, 40_000, 0)).toBe(10_000); // 28 blocks back: whole prompt
  });
});

describe("forced steps need to free a share of the prompt (forceStepFreePercent)", () => {
  const forced = { forceStepPercent: 25, forceStepFreePercent: 20, minStepTokens: 2000, cacheAware: true };
  // Far-back change: rewriting the whole prompt is expensive, so the cost rule alone would wait.
  const big = { sent: 100_000, rewrite: 100_000, window: 200_000, carry: 0 };

  it("with 0 forces a step whenever the prompt is above the line (today's rule)", () => {
    expect(decideStep({ ...big, pending: 10 }, { ...forced, forceStepFreePercent: 0 }).step).toBe(true);
    expect(forcedStepMinTokens(100_000, 200_000, { forceStepPercent: 25, forceStepFreePercent: 0 })).toBe(0);
  });

  it("does not force a small step far from the window, but keeps the carry growing", () => {
    // At 100k of a 200k window, line at 50k, ramp ending at 180k: 20% x 100k x (80k / 130k) = 12,308 tokens.
    expect(forcedStepMinTokens(100_000, 200_000, forced)).toBeCloseTo(12_308, 0);
    const d = decideStep({ ...big, pending: 5000 }, forced);
    expect(d.step).toBe(false);
    expect(d.carry).toBe(500);
    expect(decideStep({ ...big, pending: 12_308 }, forced).step).toBe(true);
  });

  it("asks for less as the prompt nears the window, and for any step from 90% of it (room for the system prompt)", () => {
    const sents = [60_000, 100_000, 150_000, 170_000];
    const need = sents.map((sent) => forcedStepMinTokens(sent, 200_000, forced));
    // The share of the prompt asked for falls all the way; the tokens fall from the middle on.
    for (let i = 1; i < need.length; i++) expect(need[i]! / sents[i]!).toBeLessThan(need[i - 1]! / sents[i - 1]!);
    expect(need[3]).toBeLessThan(need[2]!);
    expect(need[2]).toBeLessThan(need[1]!);
    expect(need[3]).toBeLessThan(3000); // 20% x 170k x 10k / 130k
    expect(forcedStepMinTokens(200_000 * FORCE_RAMP_END, 200_000, forced)).toBe(0);
    expect(forcedStepMinTokens(200_000, 200_000, forced)).toBe(0);
    expect(decideStep({ ...big, sent: 200_000, pending: 1 }, forced).step).toBe(true);
  });

  it("never forces below the line; there the cost rule decides as before", () => {
    expect(forcedStepMinTokens(49_999, 200_000, forced)).toBe(Number.POSITIVE_INFINITY);
    expect(decideStep({ ...big, sent: 40_000, pending: 30_000, rewrite: 40_000 }, forced).step).toBe(false);
    expect(decideStep({ ...big, sent: 40_000, pending: 30_000, rewrite: 100 }, forced).step).toBe(true);
  });

  it("RESULT_ONLY_PRUNING reproduces today's rule whatever the configured values", () => {
    const configured = { ...pruneDefaults, forceStepPercent: 40, forceStepFreePercent: 30 };
    expect(decideStep({ ...big, pending: 10 }, configured).step).toBe(false);
    const today = { ...configured, ...RESULT_ONLY_PRUNING };
    expect(today.forceStepPercent).toBe(25);
    expect(decideStep({ ...big, pending: 10 }, today).step).toBe(true);
  });
});

describe("one objective: the expected cost of the session under both cache models", () => {
  const rule = { ...pruneDefaults };
  // A turn just left the protected window: under (a) the step rewrites the end of the prompt; under
  // (b) too while the change is within the lookback, the whole prompt at any later request.
  const turn = { pending: 3000, sent: 40_000, rewrite: 800, rewritePrefix: 800, rewriteLater: 37_000, window: 200_000, carry: 0 };

  it("weighs both cache models the same", () => {
    expect(rewriteCost(1000, 3000)).toBeCloseTo(1.15 * 2000, 6);
    expect(rewriteCost(0, 0)).toBe(0);
  });

  it("steps at once while the step is cheaper than any later one and repays itself within the expected rest", () => {
    // Cost 1.15 x 800 - 0.1 x 3,000 = 620; saving 300 per call: repaid within 3 calls.
    expect(decideStep({ ...turn, horizon: 100 }, rule)).toEqual({ step: true, carry: 0 });
    expect(decideStep({ ...turn, horizon: 3 }, rule).step).toBe(true);
    // A session of 2 calls so far is expected to make 2 more: 600 < 620, not repaid.
    expect(decideStep({ ...turn, horizon: 2 }, rule).step).toBe(false);
    // Small steps count too (minStepTokens 0): a step of 100 tokens that rewrites 20 is taken.
    expect(decideStep({ ...turn, pending: 100, rewrite: 20, rewritePrefix: 20, horizon: 100 }, rule).step).toBe(true);
  });

  it("the rule of earlier releases (stepRule carry) waits for the carry whatever the horizon", () => {
    const carry = { ...rule, stepRule: "carry" as const };
    const d = decideStep({ ...turn, horizon: 100 }, carry);
    expect(d.step).toBe(false);
    expect(d.carry).toBe(300);
    expect(PREVIOUS_STEP_DEFAULTS.stepRule).toBe("carry");
    expect(RESULT_ONLY_PRUNING.stepRule).toBe("carry");
  });

  it("a dear step (the change behind the lookback) waits for the carry, unless most recent turns stepped cheaply", () => {
    const dear = { ...turn, rewrite: 37_000, rewritePrefix: 5000, horizon: 1000 };
    // Cost 1.15 x 21,000 - 300 = 23,850: 80 calls of carrying 300.
    expect(decideStep({ ...dear, cheapShare: 0 }, rule).step).toBe(false);
    expect(decideStep({ ...dear, cheapShare: 0, carry: 23_600 }, rule).step).toBe(true);
    expect(decideStep({ ...dear, cheapShare: CHEAP_REGIME_SHARE - 0.01 }, rule).step).toBe(false);
    expect(decideStep({ ...dear, cheapShare: CHEAP_REGIME_SHARE }, rule).step).toBe(true);
    // Never a step that cannot be repaid before the session is expected to end.
    expect(decideStep({ ...dear, cheapShare: 1, horizon: 50 }, rule).step).toBe(false);
  });

  it("forces steps only near the window by default", () => {
    expect(forcedStepMinTokens(150_000, 200_000, rule)).toBe(Number.POSITIVE_INFINITY);
    expect(forcedStepMinTokens(160_000, 200_000, rule)).toBe(0);
  });

  it("finds the cache entry the provider hits: the latest earlier call ending at or before the change, within the lookback", () => {
    const messages = Array.from({ length: 40 }, () => ({ chars: 400, blocks: 1 }));
    // Change at 30; calls ended at 10, 28 and 35: the entry at 28 is 12 blocks from the end.
    const at28 = rewriteEstimates(messages, 30, 14_000, 0, 4000, [10, 28, 35]);
    expect(at28).toEqual({ prefix: 1000, breakpoint: 1200, later: 3500 });
    // Only the entry at 10 precedes the change: 30 blocks back, the whole prompt is written again.
    expect(rewriteEstimates(messages, 30, 14_000, 0, 4000, [10, 35]).breakpoint).toBe(3500);
    // No earlier call: the whole prompt.
    expect(rewriteEstimates(messages, 30, 14_000, 0, 4000, []).breakpoint).toBe(3500);
    // Without the request ends the change itself counts as an entry (the estimate of earlier releases).
    expect(rewriteEstimates(messages, 30, 14_000, 0, 4000).breakpoint).toBe(1000);
  });
});

import { describe, expect, it } from "vitest";
import { decideStep, rewriteTokens } from "../../../../plugins/prune/step-rule.ts";

const options = { forceStepPercent: 50, minStepTokens: 1000, cacheAware: true };
const input = { pending: 2000, sent: 50_000, rewrite: 48_000, window: 200_000, carry: 0 };

describe("step rule", () => {
  it("does not step for nothing or below minStepTokens", () => {
    expect(decideStep({ ...input, pending: 0 }, options).step).toBe(false);
    expect(decideStep({ ...input, pending: 999 }, options)).toEqual({ step: false, carry: 0 });
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

import { describe, expect, it } from "vitest";
import { kotaPrune } from "../../../../presets/kota/prune-policy.ts";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";
import { compareStepRules } from "../../../../cli/replay/step-comparison.ts";

const requestsOf = (turns: number, seed: number) =>
  parseSession(
    generateSession({ turns, seed })
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).requests;

describe("the step rule against its references (same session, same run)", () => {
  it("on a 100-turn read-mostly session: the defaults are no dearer than the result-only plugin and within 1.10x of the hindsight schedule under both cache models; the previous defaults were not", async () => {
    const c = await compareStepRules(requestsOf(100, 1100), { systemTokens: 4000, contextWindow: 200_000, plugin: () => kotaPrune() });
    for (const model of ["prefix", "breakpoint"] as const) {
      expect(c.now[model]).toBeLessThanOrEqual(c.resultOnly[model]);
      expect(c.now[model]).toBeLessThanOrEqual(1.1 * c.hindsight[model]);
      expect(c.hindsight[model]).toBeLessThanOrEqual(c.now[model] * 1.0001);
    }
    // The previous default steps (minStepPercent 25, forceStepFreePercent 75, the carry rule) are far
    // from the best timing under the breakpoint model on this session.
    expect(c.previous.breakpoint).toBeGreaterThan(1.1 * c.hindsight.breakpoint);
    expect(c.previous.prefix).toBeGreaterThan(c.resultOnly.prefix);
  }, 120_000);
});

import fc from "fast-check";
import { describe, it, expect } from "vitest";
import { Pipeline, PipelineError, textContent } from "pi-governor";
import { testTool } from "pi-governor/testing";

/** Taps by one of three plugins at one of seven stages: ties between plugins and within one both occur. */
const tapsArb = fc.array(fc.record({ stage: fc.integer({ min: -3, max: 3 }).map((s) => s * 100), plugin: fc.integer({ min: 0, max: 2 }) }), {
  maxLength: 12,
});
type Tap = { stage: number; plugin: number };

/**
 * Taps each of `taps` through `tap`; a tap on a stage another plugin holds must throw GOV_TAP_TIE and
 * is left out, any other must be taken. Returns the indexes taken.
 */
function tapAll(taps: Tap[], tap: (t: Tap, i: number) => void): number[] {
  const taken: number[] = [];
  taps.forEach((t, i) => {
    const tie = taken.some((j) => taps[j]!.stage === t.stage && taps[j]!.plugin !== t.plugin);
    if (tie) {
      expect(() => tap(t, i)).toThrow(PipelineError);
      expect(() => tap(t, i)).toThrow(/GOV_TAP_TIE|both tap/);
    } else {
      tap(t, i);
      taken.push(i);
    }
  });
  return taken;
}

/** What a stable sort by stage gives over the taps taken: one plugin's ties keep tap order. */
function expectedOrder(taps: Tap[], taken: number[]): number[] {
  return taken.sort((a, b) => taps[a]!.stage - taps[b]!.stage || a - b);
}

describe("ordering (property)", () => {
  it("transform taps run in a stable sort by stage, and two plugins never share a stage, for any set of taps", async () => {
    await fc.assert(
      fc.asyncProperty(tapsArb, async (taps) => {
        const p = new Pipeline();
        const taken = tapAll(taps, (t, i) => p.hooks.context.tap({ name: `p${t.plugin}`, stage: t.stage }, (m) => [...m, { role: "x", content: i }]));
        p.seal();
        const out = await p.hooks.context.run([], { sessionId: "" });
        expect(out.map((m) => m.content)).toEqual(expectedOrder(taps, taken));
      }),
    );
  });

  it("wrap taps see the call in a stable sort by stage (outermost first) and unwind in reverse", async () => {
    await fc.assert(
      fc.asyncProperty(tapsArb, async (taps) => {
        const p = new Pipeline();
        p.registerTool("p:tool", testTool({ name: "t", execute: async () => ({ content: textContent("") }) }));
        const enter: number[] = [];
        const exit: number[] = [];
        const taken = tapAll(taps, (t, i) =>
          p.hooks.toolCall.tap({ name: `p${t.plugin}`, stage: t.stage }, (next) => async (call) => {
            enter.push(i);
            const obs = await next(call);
            exit.push(i);
            return obs;
          }),
        );
        p.seal();
        await p.callTool("t", {});
        expect(enter).toEqual(expectedOrder(taps, taken));
        expect(exit).toEqual([...enter].reverse());
      }),
    );
  });
});

import fc from "fast-check";
import { describe, it, expect } from "vitest";
import { Pipeline, textContent } from "pi-governor";
import { testTool } from "pi-governor/testing";

const tapsArb = fc.array(fc.record({ stage: fc.integer({ min: -3, max: 3 }).map((s) => s * 100) }), { maxLength: 12 });

/** What a stable sort by stage gives: ties keep tap order. */
function expectedOrder(taps: Array<{ stage: number }>): number[] {
  return taps
    .map((t, i) => ({ ...t, i }))
    .sort((a, b) => a.stage - b.stage || a.i - b.i)
    .map((t) => t.i);
}

describe("ordering (property)", () => {
  it("transform taps run in a stable sort by stage, for any set of taps", async () => {
    await fc.assert(
      fc.asyncProperty(tapsArb, async (taps) => {
        const p = new Pipeline();
        taps.forEach((t, i) => p.hooks.context.tap({ name: `p:${i}`, stage: t.stage }, (m) => [...m, { role: "x", content: i }]));
        p.seal();
        const out = await p.hooks.context.run([], { sessionId: "" });
        expect(out.map((m) => m.content)).toEqual(expectedOrder(taps));
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
        taps.forEach((t, i) =>
          p.hooks.toolCall.tap({ name: `p:${i}`, stage: t.stage }, (next) => async (call) => {
            enter.push(i);
            const obs = await next(call);
            exit.push(i);
            return obs;
          }),
        );
        p.seal();
        await p.callTool("t", {});
        expect(enter).toEqual(expectedOrder(taps));
        expect(exit).toEqual([...enter].reverse());
      }),
    );
  });
});

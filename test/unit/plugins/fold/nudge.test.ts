import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { NUDGE_KIND, NUDGE_PREFIX } from "../../../../plugins/fold/index.ts";
import { MAX_UNANSWERED_NUDGES } from "../../../../plugins/fold/nudge.ts";
import { harness, textOf, turn, turns, user } from "../../../helpers/prune-fold.ts";

/** ~2,050 chars per turn: 6 turns are ~31% of a 10,000-token window. */
const WINDOW = 10_000;

const nudgeOf = (m: AgentMessageLike) => {
  const blocks = (m as { content?: unknown }).content;
  return Array.isArray(blocks) ? (blocks as Array<{ text?: string }>).map((b) => b.text ?? "").find((t) => t.startsWith(NUDGE_PREFIX)) : undefined;
};

/** The first request of turn `t` after turns 1..t-1. */
const firstRequest = (t: number) => [...turns(t - 1), user(t)];

describe("the fold nudge", () => {
  it("is appended to the user message of the first request of a turn, names the exact call, and is persisted", async () => {
    const h = await harness();
    const out = await h.context(firstRequest(7), WINDOW);
    const text = nudgeOf(out.at(-1)!);
    expect(text).toBe(
      '[pi-governor: the context is at 31% of the window. Turns 1-5 are finished: fold them with context_fold({"from":"c1","to":"c5","summary":"..."}) to keep the context lean; the originals stay retrievable.]',
    );
    expect(h.store.entries(NUDGE_KIND)).toEqual([{ key: expect.stringMatching(/^u:700:/), text }]);
    // The call it names is valid.
    const fold = await h.fold("f7", { from: "c1", to: "c5", summary: "Turns 1-5 read f1-f5, nothing to change in them." }, 7);
    expect(fold.ok).toBe(true);
  });

  it("renders the same bytes at that message on every later request (prefix stable), also after a reload", async () => {
    const h = await harness();
    const first = await h.context(firstRequest(7), WINDOW);
    expect(nudgeOf(first.at(-1)!)).toBeDefined();
    const later = [...firstRequest(7), ...turn(7).slice(1)];
    const next = await h.context(later, WINDOW);
    expect(JSON.stringify(next.slice(0, first.length))).toBe(JSON.stringify(first));
    expect(h.store.entries(NUDGE_KIND)).toHaveLength(1);
    const reloaded = await harness({}, { store: h.store });
    expect(JSON.stringify(await reloaded.context(later, WINDOW))).toBe(JSON.stringify(next));
  });

  it("is not added below foldNudgePercent, after the first request of a turn, or with fewer than 2 finished turns to fold", async () => {
    expect(nudgeOf((await (await harness()).context(firstRequest(7), 200_000)).at(-1)!)).toBeUndefined();
    expect(nudgeOf((await (await harness({}, { fold: { nudgePercent: 50 } })).context(firstRequest(7), WINDOW)).at(-1)!)).toBeUndefined();
    const midTurn = [...firstRequest(7), ...turn(7).slice(1, 3)];
    const h = await harness();
    const out = await h.context(midTurn, WINDOW);
    expect(out.some((m) => nudgeOf(m) !== undefined)).toBe(false);
    expect(h.store.entries(NUDGE_KIND)).toEqual([]);
    // Turns 1-2 of 4 (keepRecentTurns 2 keeps 3 and 4) are enough; turn 1 of 3 is not.
    expect(nudgeOf((await (await harness()).context(firstRequest(4), 3_000)).at(-1)!)).toContain("Turns 1-2 are finished");
    expect(nudgeOf((await (await harness()).context(firstRequest(3), 1_000)).at(-1)!)).toBeUndefined();
  });

  it("comes at most once per 10 turns", async () => {
    const h = await harness();
    const nudged: number[] = [];
    for (let t = 7; t <= 18; t++) if (nudgeOf((await h.context(firstRequest(t), WINDOW)).at(-1)!)) nudged.push(t);
    expect(nudged).toEqual([7, 17]);
    expect(h.store.entries(NUDGE_KIND)).toHaveLength(2);
  });

  it("backs off while the model does not fold: spacing 10, 20 turns, then no nudge until it folds", async () => {
    const h = await harness();
    const nudged: number[] = [];
    for (let t = 7; t <= 80; t++) if (nudgeOf((await h.context(firstRequest(t), WINDOW)).at(-1)!)) nudged.push(t);
    expect(nudged).toEqual([7, 17, 37]);
    expect(h.store.entries(NUDGE_KIND)).toHaveLength(MAX_UNANSWERED_NUDGES);
    // A fold answers them: 10 quiet turns after it, the nudging starts again.
    const fold = await h.fold("f81", { from: "c1", to: "c70", summary: "Turns 1-70 read f1-f70, nothing to change in them." }, 81);
    const withFold = (t: number) => [...turns(80), user(81), ...fold.messages, ...turns(t - 82, 82), user(t)];
    const after: number[] = [];
    for (let t = 83; t <= 95; t++) if (nudgeOf((await h.context(withFold(t), WINDOW)).at(-1)!)) after.push(t);
    expect(after).toEqual([91]);
  });

  it("waits 10 turns after a fold, then names a range outside it", async () => {
    const h = await harness();
    await h.context(firstRequest(7));
    const fold = await h.fold("f7", { from: "c1", to: "c5", summary: "Turns 1-5 read f1-f5, nothing to change in them." }, 7);
    const withFold = (t: number) => [...turns(6), user(7), ...fold.messages, ...turns(t - 8, 8), user(t)];
    for (let t = 9; t <= 16; t++) expect(nudgeOf((await h.context(withFold(t), 4_000)).at(-1)!)).toBeUndefined();
    const text = nudgeOf((await h.context(withFold(17), 4_000)).at(-1)!);
    expect(text).toContain('Turns 6-15 are finished: fold them with context_fold({"from":"c6","to":"c15"');
    expect(textOf((await h.context(withFold(17), 4_000))[0]!)).toMatch(/^\[Folded turns 1-5/);
  });
});

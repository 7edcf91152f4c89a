import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { kotaPrune } from "../../../../presets/kota/prune-policy.ts";
import {
  type CacheModelName,
  MAX_SCHEDULE_REQUESTS,
  SchedulePricer,
  schedulePolicy,
  STEP_EVERY_REQUEST,
  type StepSchedule,
} from "../../../../cli/replay/hindsight.ts";
import { governorPolicy } from "../../../../cli/replay/policies.ts";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";
import { simulate } from "../../../../cli/replay/simulate.ts";
import { messagesChars, tokensOf } from "../../../../plugins/prune/size.ts";

const SIM = { systemTokens: 4000, contextWindow: 200_000 };
const text = (role: string, chars: number, tag: string): AgentMessageLike =>
  ({ role, content: [{ type: "text", text: tag.padEnd(chars, ".") }] }) as AgentMessageLike;

/**
 * A session with one `resultChars` result in its first turn, then `turns` turns whose first user message
 * has `firstUserChars`; the view (stepping at every request) replaces the result from turn 3 on.
 */
function synthetic(turns: number, resultChars = 40_000, firstUserChars = 400) {
  const history: AgentMessageLike[] = [text("user", 200, "u0"), text("assistant", 200, "a0"), text("toolResult", resultChars, "big")];
  const placeholder = text("toolResult", 100, "pruned");
  const raw: AgentMessageLike[][] = [];
  const views: AgentMessageLike[][] = [];
  for (let t = 1; t <= turns; t++) {
    history.push(text("user", t === 1 ? firstUserChars : 400, `u${t}`));
    raw.push(history.slice());
    const view = history.slice();
    if (t > 2) view[2] = placeholder;
    views.push(view);
    history.push(text("assistant", 400, `a${t}`));
  }
  return { raw, views };
}

async function measured(raw: AgentMessageLike[][], views: AgentMessageLike[][], schedule: StepSchedule, model: CacheModelName) {
  const totals = (
    await simulate(
      raw.map((messages, turn) => ({ turn, messages })),
      schedulePolicy("schedule", schedule, views),
      SIM,
    )
  ).totals;
  return { cost: model === "prefix" ? totals.costPrefix : totals.costBreakpoint, breaks: totals.breaksPrefix };
}

describe("the cheapest step schedule with hindsight", () => {
  it("steps as soon as the saving repays the rewrite, and never when it cannot", () => {
    for (const model of ["prefix", "breakpoint"] as const) {
      const cheap = synthetic(60);
      expect(new SchedulePricer(cheap.raw, cheap.views, model).cheapest().steps).toEqual([2]);
      // 1k tokens saved behind 10k that would be written again: 60 requests at 0.1x never repay 1.15x of 10k.
      const dear = synthetic(60, 4000, 40_000);
      expect(new SchedulePricer(dear.raw, dear.views, model).cheapest().steps).toEqual([]);
      const longer = synthetic(200, 4000, 40_000);
      expect(new SchedulePricer(longer.raw, longer.views, model).cheapest().steps).toEqual([2]);
    }
  });

  it("prices a schedule exactly as the cache models measure it, and no measured schedule is cheaper", async () => {
    const session = parseSession(
      generateSession({ turns: 14, seed: 7, coding: true })
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    const raw = session.requests.map((r) => r.messages);
    const every = await governorPolicy({ plugin: () => kotaPrune(), prune: { ...STEP_EVERY_REQUEST } }).start();
    const views: AgentMessageLike[][] = [];
    for (const messages of raw) views.push(await every(messages));
    for (const model of ["prefix", "breakpoint"] as const) {
      const pricer = new SchedulePricer(raw, views, model, SIM.systemTokens);
      const best = pricer.cheapest();
      const real = await measured(raw, views, best, model);
      const never = await measured(raw, views, { steps: [], cost: 0 }, model);
      expect(real.cost).toBeCloseTo(best.cost, 3);
      expect(real.breaks).toBe(best.steps.length);
      const everyStep = raw.map((_, i) => i).slice(1);
      const always = await measured(raw, views, { steps: everyStep, cost: 0 }, model);
      // The pricing sees the last step's requests only, so it may miss an older cache entry: never cheaper than measured.
      expect(pricer.costOf(everyStep)).toBeGreaterThanOrEqual(always.cost - 1e-6);
      expect(pricer.costOf([])).toBeCloseTo(never.cost, 3);
      expect(best.cost).toBeLessThanOrEqual(never.cost + 1e-6);
      expect(best.cost).toBeLessThanOrEqual(always.cost + 1e-6);
      expect(best.cost).toBeLessThan(never.cost);
      const within = pricer.cheapestWithin(2);
      expect(within.steps.length).toBeLessThanOrEqual(2);
      expect(within.cost).toBeGreaterThanOrEqual(best.cost - 1e-6);
      expect((await measured(raw, views, within, model)).cost).toBeCloseTo(within.cost, 3);
    }
  });

  it("no schedule, least of all one next to it, is priced below the cheapest; a cap on steps is kept (property)", async () => {
    const session = parseSession(
      generateSession({ turns: 24, seed: 11 })
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    const raw = session.requests.map((r) => r.messages);
    const every = await governorPolicy({ plugin: () => kotaPrune(), prune: { ...STEP_EVERY_REQUEST } }).start();
    const views: AgentMessageLike[][] = [];
    for (const messages of raw) views.push(await every(messages));
    const pricers = (["prefix", "breakpoint"] as const).map((model) => new SchedulePricer(raw, views, model, SIM.systemTokens));
    const best = pricers.map((p) => p.cheapest());
    expect(best[0]!.steps.length).toBeGreaterThan(3);
    const last = raw.length - 1;
    // Schedules next to the cheapest (a step moved, dropped or added) and arbitrary ones.
    const edit = fc.tuple(fc.constantFrom("move", "drop", "add"), fc.nat(), fc.integer({ min: -3, max: 3 }));
    const near = (base: number[]) =>
      fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
        let steps = base.slice();
        for (const [kind, at, by] of edits) {
          const i = steps.length ? at % steps.length : 0;
          if (kind === "move" && steps.length) steps[i] = Math.min(last, Math.max(1, steps[i]! + by));
          else if (kind === "drop" && steps.length) steps.splice(i, 1);
          else steps.push(1 + (at % last));
        }
        steps = [...new Set(steps)].sort((a, b) => a - b);
        return steps;
      });
    const anywhere = fc.uniqueArray(fc.integer({ min: 1, max: last }), { maxLength: 12 }).map((xs) => xs.sort((a, b) => a - b));
    pricers.forEach((pricer, i) => {
      fc.assert(
        fc.property(fc.oneof(near(best[i]!.steps), anywhere), fc.integer({ min: 0, max: 10 }), (steps, cap) => {
          expect(pricer.costOf(steps)).toBeGreaterThanOrEqual(best[i]!.cost - 1e-6);
          const within = pricer.cheapestWithin(cap);
          expect(within.steps.length).toBeLessThanOrEqual(cap);
          // Cheapest at its step price, so no schedule with as few steps costs less.
          if (steps.length <= within.steps.length) expect(within.cost).toBeLessThanOrEqual(pricer.costOf(steps) + 1e-6);
          expect(pricer.costOf(within.steps)).toBeCloseTo(within.cost, 6);
        }),
        { numRuns: 150, seed: 16 },
      );
    });
  });

  it("a step reads the cache up to the latest earlier request that ends before its change (both models)", async () => {
    const history = Array.from({ length: 12 }, (_, i) => text(i % 2 ? "toolResult" : "user", i === 4 ? 20_000 : 800, `m${i}`));
    const raw = Array.from({ length: 5 }, (_, r) => history.slice(0, 2 * r + 4));
    const placeholder = text("toolResult", 100, "pruned");
    const views = raw.map((messages, r) => (r >= 3 ? messages.map((m, i) => (i === 4 ? placeholder : m)) : messages));
    for (const model of ["prefix", "breakpoint"] as const) {
      const pricer = new SchedulePricer(raw, views, model, SIM.systemTokens);
      const real = await measured(raw, views, { steps: [3], cost: 0 }, model);
      expect(pricer.costOf([3])).toBeCloseTo(real.cost, 3);
    }
  });

  it("steps at every request a fold applies from (the model decides when, no schedule may postpone it)", () => {
    for (const model of ["prefix", "breakpoint"] as const) {
      const dear = synthetic(60, 4000, 40_000);
      const mustStep = dear.raw.map((_, r) => r === 30);
      const pricer = new SchedulePricer(dear.raw, dear.views, model, 4000, Number.POSITIVE_INFINITY, mustStep);
      const schedule = pricer.cheapest();
      expect(schedule.steps).toContain(30);
      expect(Number.isFinite(schedule.cost)).toBe(true);
      expect(pricer.costOf([])).toBe(Number.POSITIVE_INFINITY);
      expect(pricer.costOf([29])).toBe(Number.POSITIVE_INFINITY);
      expect(new SchedulePricer(dear.raw, dear.views, model).cheapest().steps).toEqual([]);
    }
  });

  it("a history that does not extend the step's (a branch switch) forces a step there", () => {
    const { raw, views } = synthetic(30);
    const branch = [text("user", 200, "other branch")];
    raw[20] = branch;
    views[20] = branch;
    for (let r = 21; r < 30; r++) (raw[r] = [...branch, ...raw[r]!.slice(3)]), (views[r] = raw[r]!);
    const schedule = new SchedulePricer(raw, views, "prefix").cheapest();
    expect(schedule.steps).toContain(20);
    expect(Number.isFinite(schedule.cost)).toBe(true);
  });

  it("never sends a prompt over the window when stepping can avoid it", async () => {
    const { raw, views } = synthetic(4, 4000, 40_000);
    expect(new SchedulePricer(raw, views, "prefix").cheapest().steps).toEqual([]);
    // The last request fits only once the 1k-token result is pruned.
    const window = SIM.systemTokens + tokensOf(messagesChars(raw[3]!)) - 1;
    const fitted = new SchedulePricer(raw, views, "prefix", SIM.systemTokens, window).cheapest();
    expect(fitted.steps.length).toBe(1);
    const totals = (
      await simulate(
        raw.map((messages, turn) => ({ turn, messages })),
        schedulePolicy("fitted", fitted, views),
        { ...SIM, contextWindow: window },
      )
    ).totals;
    expect(totals.overWindow).toBe(0);
    // When even a step's own view is over the window, nothing sends less: the window forces nothing.
    const long = synthetic(40);
    expect(new SchedulePricer(long.raw, long.views, "breakpoint", SIM.systemTokens, 1000).cheapest()).toEqual(
      new SchedulePricer(long.raw, long.views, "breakpoint", SIM.systemTokens).cheapest(),
    );
  });

  it("knows the idle gaps: a step that never pays on a warm cache is taken on the request that finds it cold, and that schedule measures cheaper", async () => {
    const dear = synthetic(60, 4000, 40_000);
    // One request a minute; the 31st comes an hour after the 30th.
    const times = dear.raw.map((_, r) => r * 60_000 + (r >= 30 ? 3600_000 : 0));
    for (const model of ["prefix", "breakpoint"] as const) {
      const clock = { times, lifetimeMs: 300_000 };
      const pricer = new SchedulePricer(dear.raw, dear.views, model, SIM.systemTokens, Number.POSITIVE_INFINITY, [], clock);
      const schedule = pricer.cheapest();
      expect(schedule.steps).toEqual([30]);
      // The same step on a warm cache: the clock-blind pricer does not take it.
      expect(new SchedulePricer(dear.raw, dear.views, model).cheapest().steps).toEqual([]);
      const requests = dear.raw.map((messages, turn) => ({ turn, messages, at: times[turn]! }));
      const measured = async (s: StepSchedule) =>
        (await simulate(requests, schedulePolicy("s", s, dear.views), SIM)).totals[model === "prefix" ? "costPrefix" : "costBreakpoint"];
      expect(await measured(schedule)).toBeLessThan(await measured({ steps: [], cost: 0 }));
      expect(await measured(schedule)).toBeLessThan(await measured({ steps: [29], cost: 0 }));
    }
  });

  it("rejects views that do not match the requests", () => {
    const { raw, views } = synthetic(5);
    expect(() => new SchedulePricer(raw, views.slice(1), "prefix")).toThrow(/raw and views differ in length \(5 and 4 requests\)/);
    expect(() => new SchedulePricer(raw, views, "prefix").costOf([3, 2])).toThrow(
      /steps must be ascending request indices from 1 to 4 \(got 2 at position 1\)/,
    );
    const huge = Array.from({ length: MAX_SCHEDULE_REQUESTS + 1 }, () => [] as AgentMessageLike[]);
    expect(() => new SchedulePricer(huge, huge, "prefix")).toThrow(/3001 requests are more than the 3000/);
  });
});

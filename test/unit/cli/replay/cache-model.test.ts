import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { BreakpointCache, PrefixCache, RequestPreparer } from "../../../../cli/replay/cache-model.ts";

const msg = (i: number, chars = 400): AgentMessageLike => ({
  role: i % 2 ? "assistant" : "user",
  content: [{ type: "text", text: `${i}`.padEnd(chars, ".") }],
});

describe("cache models", () => {
  it("(a) and (b) both read an unchanged, growing prompt from cache; only the new part is written", () => {
    const prep = new RequestPreparer(1000);
    const a = new PrefixCache();
    const b = new BreakpointCache();
    const history = Array.from({ length: 6 }, (_, i) => msg(i));
    const first = prep.prepare(history.slice(0, 4));
    expect(a.observe(first)).toMatchObject({ readTokens: 0, writeTokens: 1400, broke: false });
    b.observe(first);
    const second = prep.prepare(history);
    expect(a.observe(second)).toMatchObject({ readTokens: 1400, writeTokens: 200, broke: false });
    expect(b.observe(second)).toMatchObject({ readTokens: 1400, writeTokens: 200, broke: false });
  });

  it("a change far behind the end costs (a) only the suffix but (b) the whole prompt after the system prompt", () => {
    const prep = new RequestPreparer(1000);
    const a = new PrefixCache();
    const b = new BreakpointCache();
    const history = Array.from({ length: 30 }, (_, i) => msg(i));
    const r1 = prep.prepare(history);
    a.observe(r1);
    b.observe(r1);
    const changed = history.slice();
    changed[2] = msg(2, 40); // pruned, 28 blocks behind the end
    const r2 = prep.prepare(changed);
    const oa = a.observe(r2);
    const ob = b.observe(r2);
    expect(oa.readTokens).toBe(1000 + 200);
    expect(ob.readTokens).toBe(1000);
    expect(oa.broke && ob.broke).toBe(true);
    expect(ob.cost).toBeGreaterThan(oa.cost);
  });

  it("(b) still hits an earlier breakpoint when the change is within the lookback", () => {
    const prep = new RequestPreparer(0);
    const b = new BreakpointCache();
    const history = Array.from({ length: 30 }, (_, i) => msg(i));
    b.observe(prep.prepare(history.slice(0, 25)));
    const changed = history.slice();
    changed[27] = msg(27, 40);
    expect(b.observe(prep.prepare(changed)).readTokens).toBe(2500);
  });
});

describe("cache models with time", () => {
  const history = Array.from({ length: 8 }, (_, i) => msg(i));
  const MIN = 60_000;

  it("a request after a gap longer than the lifetime reads nothing under both models (cold); a shorter gap reads as before", () => {
    for (const Model of [PrefixCache, BreakpointCache]) {
      const prep = new RequestPreparer(1000);
      const cache = new Model(300_000);
      expect(cache.observe(prep.prepare(history.slice(0, 4)), 0).cold).toBeUndefined();
      const warm = cache.observe(prep.prepare(history.slice(0, 6)), 4 * MIN);
      expect(warm).toMatchObject({ readTokens: 1400, writeTokens: 200 });
      expect(warm.cold).toBeUndefined();
      const cold = cache.observe(prep.prepare(history), 4 * MIN + 5 * MIN + 1);
      expect(cold).toMatchObject({ readTokens: 0, writeTokens: 1800, cold: true, broke: true });
      // Without times nothing expires (the models of earlier releases).
      const timeless = new Model();
      timeless.observe(prep.prepare(history.slice(0, 6)));
      expect(timeless.observe(prep.prepare(history)).readTokens).toBe(1600);
    }
  });

  it("a warming refresh reads the last request whole and keeps its entries alive past the lifetime", () => {
    for (const Model of [PrefixCache, BreakpointCache]) {
      const prep = new RequestPreparer(1000);
      const cache = new Model(300_000);
      cache.observe(prep.prepare(history.slice(0, 6)), 0);
      const refresh = cache.refresh(270_000)!;
      expect(refresh).toMatchObject({ readTokens: 1600, writeTokens: 0 });
      expect(refresh.cost).toBeCloseTo(160);
      expect(cache.observe(prep.prepare(history), 500_000)).toMatchObject({ readTokens: 1600, writeTokens: 200 });
      // A refresh after the entry expired is no refresh.
      expect(new Model(300_000).refresh(1)).toBeUndefined();
      const late = new Model(300_000);
      late.observe(prep.prepare(history), 0);
      expect(late.refresh(300_001)).toBeUndefined();
    }
  });
});

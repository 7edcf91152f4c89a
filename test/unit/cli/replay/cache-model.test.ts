import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "../../../../core/index.ts";
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

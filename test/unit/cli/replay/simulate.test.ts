import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { noPruning, type Policy } from "../../../../cli/replay/policies.ts";
import { requestsFromMessages, type SimRequest, simulate, startsRun } from "../../../../cli/replay/simulate.ts";
import type { ModelPrices } from "../../../../cli/replay/warming.ts";

const MIN = 60_000;
const text = (role: string, chars: number, timestamp: number): AgentMessageLike =>
  ({ role, content: [{ type: "text", text: "x".repeat(chars) }], timestamp }) as AgentMessageLike;

/** Three turns of one 200k-char exchange each; the third prompt comes `gap` after the second reply. */
function session(gap: number): SimRequest[] {
  const m = [text("user", 400, 0), text("assistant", 200_000, 1000), text("user", 400, 2 * MIN), text("assistant", 200_000, 2 * MIN + 1000)];
  m.push(text("user", 400, 2 * MIN + 1000 + gap), text("assistant", 400, 2 * MIN + 2000 + gap));
  return requestsFromMessages(m);
}
const OPUS: ModelPrices = { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 };

describe("simulate with time", () => {
  it("takes each request's time from its reply and counts the requests that found the cache cold", async () => {
    expect(session(0).map((r) => r.at)).toEqual([1000, 2 * MIN + 1000, 2 * MIN + 2000]);
    expect((await simulate(session(2 * MIN), noPruning)).totals.coldRequests).toBe(0);
    const cold = await simulate(session(10 * MIN), noPruning);
    expect(cold.totals.coldRequests).toBe(1);
    expect(cold.requests[2]!.prefix).toMatchObject({ cold: true, readTokens: 0 });
    expect(cold.totals.costPrefix).toBeGreaterThan((await simulate(session(2 * MIN), noPruning)).totals.costPrefix);
    // A longer lifetime keeps it warm.
    expect((await simulate(session(10 * MIN), noPruning, { cacheLifetimeMs: 3600_000 })).totals.coldRequests).toBe(0);
  });

  it("prices pi's idle warming where it pays (a dear model, a large prompt): the refreshes cost, the request after them is warm", async () => {
    const warmed = await simulate(session(10 * MIN), noPruning, { warming: { mode: "idle", prices: OPUS } });
    expect(warmed.totals.warms).toBe(2);
    expect(warmed.totals.coldRequests).toBe(0);
    expect(warmed.requests[2]!.warms).toBe(2);
    // Two refreshes of the ~104k-token prompt at 0.1x.
    expect(warmed.totals.warmCost).toBeCloseTo(2 * 0.1 * warmed.requests[1]!.tokens, 0);
    // Past pi's 30 idle minutes the refreshes were spent and the request is cold anyway.
    const away = await simulate(session(3 * 3600_000), noPruning, { warming: { mode: "idle", prices: OPUS } });
    expect(away.totals).toMatchObject({ warms: 6, coldRequests: 1 });
  });

  it("asks the policy before each refresh: a stop ends the warming until the next request", async () => {
    let questions = 0;
    const stopping: Policy = {
      name: "stops warming",
      async start() {
        return Object.assign(async (messages: AgentMessageLike[]) => messages, {
          cacheWarming: async (q: { action: string; idle: boolean; promptTokens: number }) => {
            questions++;
            expect(q).toMatchObject({ action: "warm", idle: true });
            return "stop" as const;
          },
        });
      },
    };
    const r = await simulate(session(10 * MIN), stopping, { warming: { mode: "idle", prices: OPUS } });
    expect(questions).toBe(1);
    expect(r.totals).toMatchObject({ warms: 0, coldRequests: 1 });
  });

  it("applies the refreshes a session recorded instead of the warming rule", async () => {
    const requests = session(10 * MIN);
    requests[2]!.warms = [2 * MIN + 1000 + 4 * MIN, 2 * MIN + 1000 + 8 * MIN];
    const r = await simulate(requests, noPruning);
    expect(r.totals).toMatchObject({ warms: 2, coldRequests: 0 });
    // Refreshes after the last request are paid too: the last prompt, read from cache each time.
    const last = requests.at(-1)!.at!;
    const trailing = await simulate(requests, noPruning, { trailingWarms: [last + 270_000, last + 540_000] });
    expect(trailing.totals.warms).toBe(4);
    expect(trailing.totals.costPrefix - r.totals.costPrefix).toBeCloseTo(2 * 0.1 * trailing.requests.at(-1)!.tokens, 5);
  });

  it("knows a request that starts a run (the agent waited for the user) from one within a run", () => {
    expect(startsRun([text("user", 1, 1)])).toBe(true);
    expect(startsRun([text("user", 1, 1), text("assistant", 1, 2), { role: "toolResult", content: [] } as AgentMessageLike])).toBe(false);
    expect(startsRun([text("assistant", 1, 2), text("user", 1, 3), { role: "custom", content: "briefing" } as AgentMessageLike])).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { MAX_IDLE_AGE_MS, piWarmingDecision, refreshDelayMs, refreshTimes, SONNET_PRICES } from "../../../../cli/replay/warming.ts";

describe("pi's cache warming as the simulator prices it", () => {
  it("refreshes at 90% of the lifetime, at least ten seconds early, and not at all for ten seconds or less", () => {
    expect(refreshDelayMs(300_000)).toBe(270_000);
    expect(refreshDelayMs(60_000)).toBe(50_000);
    expect(refreshDelayMs(12_000)).toBe(2000);
    expect(refreshDelayMs(10_000)).toBeUndefined();
  });

  it("warms an idle cache only when 0.15 x the miss cost less the refresh is at least $0.05 (Sonnet: about 230k tokens), during a run from about 16k", () => {
    expect(piWarmingDecision(200_000, SONNET_PRICES, true).action).toBe("stop");
    expect(piWarmingDecision(240_000, SONNET_PRICES, true).action).toBe("warm");
    expect(piWarmingDecision(15_000, SONNET_PRICES, false).action).toBe("stop");
    expect(piWarmingDecision(17_000, SONNET_PRICES, false)).toMatchObject({ action: "warm", continuationProbability: 1 });
    const d = piWarmingDecision(100_000, SONNET_PRICES, true);
    expect(d.warmCost).toBeCloseTo(0.03 + 15e-6);
    expect(d.missCost).toBeCloseTo(0.375 - 0.03);
  });

  it("lists the refreshes until the next request, for at most 30 idle minutes, and stops at the first stop", async () => {
    const always = async () => "warm" as const;
    expect(await refreshTimes(0, 600_000, 300_000, "idle", true, always)).toEqual([270_000, 540_000]);
    const long = await refreshTimes(0, 5 * 3600_000, 300_000, "idle", true, always);
    expect(long).toHaveLength(6);
    expect(long.at(-1)!).toBeLessThanOrEqual(MAX_IDLE_AGE_MS);
    expect(await refreshTimes(0, 5 * 3600_000, 300_000, "streaming", true, always)).toEqual([]);
    expect(await refreshTimes(0, 600_000, 300_000, "off", false, always)).toEqual([]);
    let asked = 0;
    expect(await refreshTimes(0, 3600_000, 300_000, "idle", true, async () => (++asked === 2 ? "stop" : "warm"))).toEqual([270_000]);
  });
});

/**
 * The chaos soak in the suite (~1,000 calls; `npm run soak` runs 10,000): random faults of every
 * strategy through the full kota preset over the KotaDB stand-in and the mcp preset over the real
 * server-everything. Every call must end with an observation, nothing may leak, and no
 * non-idempotent tool may run twice for one call.
 */
import { describe, expect, it } from "vitest";
import { runSoak } from "./soak.ts";

describe("chaos soak", () => {
  it("1,000 calls under random faults: all resolve, nothing leaks, nothing non-idempotent repeats", async () => {
    const r = await runSoak({ calls: 1_000, concurrency: 8, seed: 20_261_123 });
    console.log(`chaos soak: ${JSON.stringify(r)}`);
    expect(r.resolved).toBe(r.calls);
    expect(r.calls).toBe(1_000);
    expect(r.unhandledRejections).toBe(0);
    expect(r.liveTimers).toBe(0);
    expect(r.extraActiveResources).toEqual([]);
    expect(r.liveChildren).toBe(0);
    expect(r.osChildren).toBe(0);
    expect(r.serverPidsAlive).toBe(0);
    expect(r.repeatedNonIdempotent).toBe(0);
    expect(r.nonIdempotentCalls).toBeGreaterThan(50);
    // Every strategy fired, and every injected fault was logged, sent as an event and marked on its call.
    for (const type of ["latency", "error", "isError", "hang", "oversize", "stop", "kill"]) expect(r.injected[type] ?? 0, type).toBeGreaterThan(0);
    const total = Object.values(r.injected).reduce((s, n) => s + n, 0);
    expect(r.events).toBe(total);
    expect(r.marked).toBeGreaterThan(0);
    expect(r.marked).toBeLessThanOrEqual(total);
    expect(r.heapAfterMb).toBeLessThan(r.heapBeforeMb + 64);
  }, 240_000);
});

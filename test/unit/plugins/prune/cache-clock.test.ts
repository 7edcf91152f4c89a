import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { requestCache } from "../../../../plugins/prune/cache-clock.ts";

const m = (role: string, timestamp: unknown): AgentMessageLike => ({ role, content: [{ type: "text", text: role }], timestamp }) as AgentMessageLike;

describe("requestCache: when the next request finds the cache cold", () => {
  it("measures from the newest reply to the newest message after it, against the lifetime", () => {
    const messages = [m("user", 1000), m("assistant", 2000), m("toolResult", 3000), m("user", 2000 + 301_000)];
    expect(requestCache(messages, 300)).toEqual({ now: 303_000, lastUse: 2000, lifetimeMs: 300_000, cold: true });
    expect(requestCache(messages, 301)!.cold).toBe(false);
  });

  it("counts the host's later warming refresh as the last use, never an earlier one", () => {
    const messages = [m("assistant", 10_000), m("user", 10_000 + 400_000)];
    expect(requestCache(messages, 300, 10_000 + 200_000)).toMatchObject({ lastUse: 210_000, cold: false });
    expect(requestCache(messages, 300, 5000)).toMatchObject({ lastUse: 10_000, cold: true });
  });

  it("knows nothing without an earlier reply or without usable timestamps (hostile or missing values read as none)", () => {
    expect(requestCache([m("user", 1000)], 300)).toBeUndefined();
    for (const bad of [undefined, "1000", Number.NaN, -5, 0, Number.POSITIVE_INFINITY, { valueOf: () => 1 }]) {
      expect(requestCache([m("assistant", bad), m("user", 10_000_000)], 300)).toBeUndefined();
      expect(requestCache([m("assistant", 1000), m("user", bad)], 300)).toBeUndefined();
    }
    // A message from before the reply (another extension's, stamped oddly) is never "cold".
    expect(requestCache([m("assistant", 500_000), m("custom", 1000)], 300)!.cold).toBe(false);
  });
});

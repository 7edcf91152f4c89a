/** The reconnect backoff schedule: each attempt's wait, the last step repeating. */
import { describe, expect, it } from "vitest";
import { scheduledBackoffMs as backoffDelay } from "../../../../lib/resilience/backoff.ts";
import { MCP_SERVER_DEFAULTS } from "../../../../lib/mcp/index.ts";

describe("backoffDelay", () => {
  it("follows the schedule and repeats its last step", () => {
    const s = MCP_SERVER_DEFAULTS.backoffMs;
    expect([1, 2, 3, 4, 5, 6, 9].map((a) => backoffDelay(a, s))).toEqual([100, 200, 400, 800, 1600, 1600, 1600]);
    expect(backoffDelay(1, [])).toBe(0);
  });
});

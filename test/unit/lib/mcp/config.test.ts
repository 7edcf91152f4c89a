/** A managed MCP server's config: documented defaults and names that can prefix tool names. */
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../../lib/mcp/config.ts";

describe("config", () => {
  it("fills the documented defaults", () => {
    const c = resolveServerConfig({ name: "kota", command: "bun" });
    expect(c).toMatchObject({
      connectTimeoutMs: 10_000,
      maxReconnectAttempts: 5,
      backoffMs: [100, 200, 400, 800, 1600],
      closeGraceMs: 2_000,
      heartbeatIntervalMs: 500,
      heartbeatTimeoutMs: 2_000,
      env: {},
      args: [],
    });
  });
  it("rejects names that cannot prefix tool names", () => {
    expect(() => resolveServerConfig({ name: "bad name", command: "x" })).toThrow(/must start with a letter/);
  });
});

/** Shared tool tags: which server a tool belongs to. */
import { describe, expect, it } from "vitest";
import { mcpServerTag, serverOfTags, serverTag } from "../../../../lib/tags/index.ts";

describe("shared tags", () => {
  it("names a tool's server by its first server:<name> or mcp:<name> tag", () => {
    expect(serverOfTags(["kota", "mcp", serverTag("kota")])).toBe("kota");
    expect(serverOfTags(["mcp", mcpServerTag("everything")])).toBe("everything");
    expect(serverOfTags([mcpServerTag("a"), serverTag("b")])).toBe("a");
    expect(serverOfTags(["mcp", "server:", "mcp:"])).toBeUndefined();
  });
});

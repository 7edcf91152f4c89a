import { describe, expect, it } from "vitest";
import { piMcpNextStep, piMcpServerOf } from "../../../../lib/mcp-identity/index.ts";

describe("piMcpServerOf", () => {
  it("reads the server of pi's MCP tool names", () => {
    expect(piMcpServerOf("mcp__github__search_code")).toBe("github");
    expect(piMcpServerOf("mcp__dev-radius__search")).toBe("dev-radius");
    expect(piMcpServerOf("mcp__a_b__c__d")).toBe("a_b");
  });

  it("is undefined for other tools and crafted names", () => {
    for (const name of [
      "read",
      "mcp_x__y",
      "mcp__",
      "mcp____tool",
      "mcp__server",
      `mcp__${"s".repeat(65)}__t`,
      "mcp__a b__t",
      "mcp__\u001b[31m__t",
      "mcp__a/../b__t",
    ]) {
      expect(piMcpServerOf(name), name).toBeUndefined();
    }
  });
});

describe("piMcpNextStep", () => {
  it("names pi's reconnect command and how to let pi-governor manage the server", () => {
    const text = piMcpNextStep("docs");
    expect(text).toContain("/mcp reconnect docs");
    expect(text).toContain("mcp.servers");
  });
});

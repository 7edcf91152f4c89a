import { describe, expect, it } from "vitest";
import { withPiMcpNextStep } from "../../../../host/pi/host-call-events.ts";
import type { ToolResultValue } from "pi-governor";

const result = (toolName: string, isError: boolean): ToolResultValue => ({
  toolName,
  toolCallId: "c",
  input: {},
  content: [{ type: "text", text: "MCP error -32000: Connection closed" }],
  details: undefined,
  isError,
});

describe("withPiMcpNextStep", () => {
  it("adds the next step to a failed pi MCP call without the server's answer", () => {
    const out = withPiMcpNextStep(result("mcp__docs__search", true), undefined);
    expect(out.content).toHaveLength(2);
    expect(out.content[1]).toMatchObject({ type: "text", text: expect.stringContaining("/mcp reconnect docs") });
  });

  it("leaves successes, the server's own error answers and other tools alone (the same object)", () => {
    for (const [value, structured] of [
      [result("mcp__docs__search", false), undefined],
      [result("mcp__docs__search", true), { isError: true, content: [] }],
      [result("read", true), undefined],
      [result("docs_search", true), undefined],
    ] as const) {
      expect(withPiMcpNextStep(value, structured)).toBe(value);
    }
  });
});

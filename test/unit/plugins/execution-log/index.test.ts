import { describe, expect, it } from "vitest";
import type { HostToolCall } from "pi-governor";
import { hostCallRow, UNKNOWN_TOOL_LABEL } from "../../../../plugins/execution-log/index.ts";

const call = (o: Partial<HostToolCall>): HostToolCall => ({
  toolName: "mcp__big__echo",
  toolCallId: "p/1",
  sessionId: "s",
  startedAtMs: 5,
  durationMs: 12,
  isError: false,
  outcome: "ok",
  governed: false,
  args: { text: "hi" },
  content: [],
  ...o,
});

describe("hostCallRow", () => {
  it("maps a call pi ran to a row with its parent, duration and outcome", () => {
    expect(hostCallRow(call({ parentToolCallId: "p" }))).toEqual({
      taskId: "p/1",
      parentTaskId: "p",
      toolName: "mcp__big__echo",
      status: "SUCCESS",
      durationMs: 12,
      startedAtMs: 5,
      sessionId: "s",
      errorCategory: undefined,
      retries: 0,
      args: { text: "hi" },
      content: [],
    });
    expect(hostCallRow(call({ outcome: "error_result", isError: true }))).toMatchObject({ status: "ERROR", errorCategory: "tool_error" });
    expect(hostCallRow(call({ outcome: "error", isError: true }))).toMatchObject({ status: "ERROR", errorCategory: "failed" });
    expect(hostCallRow(call({ outcome: "blocked", isError: true }))).toMatchObject({ status: "ERROR", errorCategory: "blocked" });
  });

  it("counts a call to a tool pi does not have under one label: the name is the model's text", () => {
    const invented = "ghp_" + "x".repeat(65_540);
    expect(hostCallRow(call({ toolName: invented, known: false, isError: true, outcome: "error" }))).toMatchObject({ toolName: UNKNOWN_TOOL_LABEL });
    expect(hostCallRow(call({ known: true }))).toMatchObject({ toolName: "mcp__big__echo" });
  });

  it("writes no row for a governed tool's call (the wrapper writes that one)", () => {
    expect(hostCallRow(call({ governed: true }))).toBeUndefined();
  });
});

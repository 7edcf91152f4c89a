import { describe, expect, it } from "vitest";
import { HostCalls } from "../../../../host/pi/host-calls.ts";

/** A HostCalls on clocks the test moves. */
function setup() {
  let wall = 1_700_000_000_000;
  let mono = 0;
  const calls = new HostCalls(
    () => wall,
    () => mono,
  );
  return { calls, tick: (ms: number) => ((wall += ms), (mono += ms)) };
}

const text = (t: string) => [{ type: "text", text: t }];

describe("HostCalls", () => {
  it("reports a finished call with its start, measured duration and outcome (pi 0.x: no durationMs, no parent)", () => {
    const t = setup();
    t.calls.started({ toolCallId: "a", toolName: "read", args: { path: "x" } });
    t.tick(42);
    const call = t.calls.ended(
      { toolCallId: "a", toolName: "read", args: { path: "x" }, isError: false, result: { content: text("ok") } },
      { sessionId: "s", governed: false },
    );
    expect(call).toEqual({
      toolName: "read",
      toolCallId: "a",
      sessionId: "s",
      startedAtMs: 1_700_000_000_000,
      durationMs: 42,
      isError: false,
      outcome: "ok",
      governed: false,
      args: { path: "x" },
      content: text("ok"),
    });
  });

  it("takes pi 1.x's parent and durationMs; parentOf answers while the call runs", () => {
    const t = setup();
    t.calls.started({ toolCallId: "p/1", toolName: "mcp__big__echo", parentToolCallId: "p" });
    expect(t.calls.parentOf("p/1")).toBe("p");
    const call = t.calls.ended(
      { toolCallId: "p/1", toolName: "mcp__big__echo", durationMs: 7.6, isError: false, parentToolCallId: "p", result: { content: [] } },
      { sessionId: "s", governed: false },
    );
    expect(call).toMatchObject({ parentToolCallId: "p", durationMs: 8 });
    expect(t.calls.parentOf("p/1")).toBeUndefined();
  });

  it("tells an error answer (structured result) from a failure without one, and a blocked call", () => {
    const t = setup();
    const end = (id: string, result: unknown) =>
      t.calls.ended({ toolCallId: id, toolName: "mcp__x__y", isError: true, result }, { sessionId: "s", governed: false }).outcome;
    t.calls.started({ toolCallId: "1", toolName: "mcp__x__y" });
    expect(end("1", { content: text("bad"), structuredContent: { isError: true } })).toBe("error_result");
    t.calls.started({ toolCallId: "2", toolName: "mcp__x__y" });
    expect(end("2", { content: text("Connection closed") })).toBe("error");
    t.calls.started({ toolCallId: "3", toolName: "mcp__x__y" });
    t.calls.blocked("3", "paused");
    const blocked = t.calls.ended(
      { toolCallId: "3", toolName: "mcp__x__y", isError: true, result: { content: text("paused") } },
      { sessionId: "s", governed: false },
    );
    expect(blocked).toMatchObject({ outcome: "blocked", blockedBy: "paused" });
  });

  it("an end without a start (pi refused the call early, or the start was forgotten) still reports, with sane values", () => {
    const t = setup();
    const call = t.calls.ended(
      { toolCallId: "z", toolName: "nope", isError: true, durationMs: Number.NaN, result: "not an object" },
      { sessionId: "s", governed: false },
    );
    expect(call).toMatchObject({ durationMs: 0, outcome: "error", content: [], startedAtMs: 1_700_000_000_000 });
  });

  it("forgets the oldest starts beyond its bound instead of growing", () => {
    const t = setup();
    for (let i = 0; i < 5_000; i++) t.calls.started({ toolCallId: `c${i}`, toolName: "read", parentToolCallId: "p" });
    expect(t.calls.parentOf("c0")).toBeUndefined();
    expect(t.calls.parentOf("c4999")).toBe("p");
  });
});

import { describe, expect, it } from "vitest";
import { success, type ToolCallContext, type ToolInfo } from "../../../../core/index.ts";
import { repeatedCallWrapper, repeatKey, TurnResults } from "../../../../plugins/policies/repeated-calls.ts";

const info = (readOnlyHint: boolean): ToolInfo => ({ name: "kota_search", description: "", annotations: { readOnlyHint }, tags: [], owner: "t" });
const call = (args: Record<string, unknown>, toolCallId = "c1"): ToolCallContext => ({
  toolName: "kota_search",
  toolCallId,
  args,
  signal: new AbortController().signal,
  attempt: 1,
  sessionId: "s",
  startedAt: 0,
});

describe("repeated read-only calls", () => {
  it("stays out of tools that are not read-only", () => {
    const next = async () => success("kota_search", []);
    expect(repeatedCallWrapper(() => new TurnResults({ maxEntries: 4, maxBytes: 1000 }))(next, info(false))).toBe(next);
  });

  it("answers the same arguments (any key order) from the first result, says so, and runs again after forget()", async () => {
    const turn = new TurnResults({ maxEntries: 4, maxBytes: 1000 });
    let runs = 0;
    const handler = repeatedCallWrapper(() => turn)(async () => success("kota_search", [{ type: "text", text: `answer ${++runs}` }]), info(true));
    await handler(call({ query: "a", limit: 5 }, "first"));
    const again = await handler(call({ limit: 5, query: "a" }, "second"));
    expect(runs).toBe(1);
    expect(again.content).toHaveLength(2);
    expect((again.content[0] as { text: string }).text).toContain("as first earlier in this turn");
    expect(again.content[1]).toEqual({ type: "text", text: "answer 1" });
    await handler(call({ query: "b" }));
    expect(runs).toBe(2);
    turn.forget();
    await handler(call({ query: "a", limit: 5 }));
    expect(runs).toBe(3);
  });

  it("keeps no failed answer, none over maxBytes, and no more than maxEntries", async () => {
    const turn = new TurnResults({ maxEntries: 1, maxBytes: 10 });
    turn.remember("k1", "c", [{ type: "text", text: "x".repeat(11) }]);
    expect(turn.recall("k1")).toBeUndefined();
    turn.remember("k2", "c", [{ type: "text", text: "ok" }]);
    turn.remember("k3", "c", [{ type: "text", text: "ok" }]);
    expect(turn.recall("k2")).toBeDefined();
    expect(turn.recall("k3")).toBeUndefined();
    expect(repeatKey("t", { deep: JSON.parse("[".repeat(80) + "]".repeat(80)) })).toBeUndefined();
  });
});

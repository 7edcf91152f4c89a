import { describe, expect, it } from "vitest";
import { success, type ToolCallContext, type ToolInfo } from "pi-governor";
import { REHYDRATION_TAG } from "../../../../lib/tags/index.ts";
import { ChangeWatch } from "../../../../plugins/policies/change-watch.ts";
import { lingers, type RepeatState, repeatedCallWrapper, repeatKey, TurnResults } from "../../../../plugins/policies/repeated-calls.ts";

const info = (readOnlyHint: boolean, more: { openWorldHint?: boolean; tags?: string[] } = { openWorldHint: false }): ToolInfo => ({
  name: "kota_search",
  description: "",
  annotations: { readOnlyHint, ...(more.openWorldHint !== undefined ? { openWorldHint: more.openWorldHint } : {}) },
  tags: more.tags ?? [],
  owner: "t",
});
const call = (args: Record<string, unknown>, toolCallId = "c1"): ToolCallContext => ({
  toolName: "kota_search",
  toolCallId,
  args,
  signal: new AbortController().signal,
  attempt: 1,
  sessionId: "s",
  startedAt: 0,
});
const state = (limits = { maxEntries: 4, maxBytes: 1000 }): RepeatState => ({ results: new TurnResults(limits), watch: new ChangeWatch() });

describe("repeated read-only calls", () => {
  it("stays out of tools that are not read-only, open-world ones and pi-governor's own stores", () => {
    const next = async () => success("kota_search", []);
    const s = state();
    expect(repeatedCallWrapper(() => s)(next, info(false))).toBe(next);
    expect(repeatedCallWrapper(() => s)(next, info(true, {}))).toBe(next); // openWorld unsaid: MCP's default is true
    expect(repeatedCallWrapper(() => s)(next, info(true, { openWorldHint: true }))).toBe(next);
    expect(repeatedCallWrapper(() => s)(next, info(true, { openWorldHint: false, tags: [REHYDRATION_TAG] }))).toBe(next);
  });

  it("answers the same arguments (any key order) from the first result, says so, and runs again after forget()", async () => {
    const s = state();
    let runs = 0;
    const handler = repeatedCallWrapper(() => s)(async () => success("kota_search", [{ type: "text", text: `answer ${++runs}` }]), info(true));
    await handler(call({ query: "a", limit: 5 }, "first"));
    const again = await handler(call({ limit: 5, query: "a" }, "second"));
    expect(runs).toBe(1);
    expect(again.content).toHaveLength(2);
    expect((again.content[0] as { text: string }).text).toContain("as first earlier in this turn");
    expect(again.content[1]).toEqual({ type: "text", text: "answer 1" });
    await handler(call({ query: "b" }));
    expect(runs).toBe(2);
    s.results.forget();
    await handler(call({ query: "a", limit: 5 }));
    expect(runs).toBe(3);
  });

  it("remembers no result a change overlapped: one running when it started, or one that started or ended before it ended", async () => {
    const s = state();
    let runs = 0;
    let during: (() => void) | undefined;
    const handler = repeatedCallWrapper(() => s)(async () => {
      during?.();
      return success("kota_search", [{ type: "text", text: `answer ${++runs}` }]);
    }, info(true));
    const twice = async () => {
      await handler(call({ q: 1 }, "r1"));
      await handler(call({ q: 1 }, "r2"));
      const ran = runs;
      runs = 0;
      return ran;
    };
    // A change running when the read starts (it started in the same batch, before this read ran).
    s.watch.started("edit-1", false);
    expect(await twice()).toBe(2);
    s.watch.ended("edit-1");
    // A change that starts while the read runs.
    during = () => s.watch.started("write-2", false);
    await handler(call({ q: 2 }, "r3"));
    during = () => s.watch.ended("write-2");
    await handler(call({ q: 2 }, "r4")); // ran beside write-2's end: not remembered either
    during = undefined;
    const before = runs;
    await handler(call({ q: 2 }, "r5"));
    expect(runs - before).toBe(1);
    // Quiet again: remembered.
    runs = 0;
    expect(await twice()).toBe(1);
  });

  it("answers nothing from memory while a change runs, even what was remembered before it", async () => {
    const s = state();
    let runs = 0;
    const handler = repeatedCallWrapper(() => s)(async () => success("kota_search", [{ type: "text", text: `answer ${++runs}` }]), info(true));
    await handler(call({ q: 1 }, "r1"));
    s.watch.started("edit-9", false); // (the gate also forgets; here only the watch knows)
    await handler(call({ q: 1 }, "r2"));
    expect(runs).toBe(2);
  });

  it("after a change whose work may outlast it, remembers nothing more this run; pi's edit and write are done when they end", async () => {
    const s = state();
    let runs = 0;
    const handler = repeatedCallWrapper(() => s)(async () => success("kota_search", [{ type: "text", text: `answer ${++runs}` }]), info(true));
    s.watch.started("bash-1", lingers({ toolName: "bash", governed: false }));
    s.watch.ended("bash-1");
    await handler(call({ q: 1 }, "r1"));
    await handler(call({ q: 1 }, "r2"));
    expect(runs).toBe(2);
    expect(lingers({ toolName: "edit", governed: false })).toBe(false);
    expect(lingers({ toolName: "write", governed: false })).toBe(false);
    expect(lingers({ toolName: "kota_index", governed: true })).toBe(false); // pi-governor's own: waits for its work
    expect(lingers({ toolName: "acme_wipe", governed: true, mcp: { server: "acme", tool: "wipe" } })).toBe(true);
    expect(lingers({ toolName: "mcp__acme__wipe", governed: false, mcp: { server: "acme", tool: "wipe" } })).toBe(true);
    expect(lingers({ toolName: "other_extension_tool", governed: false })).toBe(true);
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

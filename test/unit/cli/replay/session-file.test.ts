import { describe, expect, it } from "vitest";
import { MAX_REPLAYED_CALLS, parseSession, parseSessionLines } from "../../../../cli/replay/session-file.ts";

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const msg = (id: string, parentId: string | null, message: Record<string, unknown>) =>
  line({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message });
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }], timestamp: 1 });

describe("session file reader", () => {
  it("follows the active branch (leaf = newest entry) via parentId and makes one request per assistant message", () => {
    const text = [
      line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" }),
      msg("1", null, user("first")),
      msg("2", "1", assistant("a1")),
      msg("3", "2", user("abandoned")),
      msg("4", "3", assistant("a-abandoned")),
      line({ type: "branch_summary", id: "5", parentId: "2", timestamp: "2026-01-01T00:00:00.000Z", fromId: "4", summary: "tried X" }),
      msg("6", "5", user("second")),
      msg("7", "6", assistant("a2")),
    ].join("\n");
    const s = parseSession(text);
    expect(s.problems).toEqual([]);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.turn).toBe(2);
    expect(s.requests[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "branchSummary", "user"]);
    expect(JSON.stringify(s.requests[1]!.messages)).not.toContain("abandoned");
  });

  it("gives each call its time (the reply's timestamp, else the entry's) and the cache warming refreshes pi recorded before it", () => {
    const warm = (id: string, parentId: string, timestamp: string) =>
      line({ type: "usage", id, parentId, timestamp, kind: "cache_warm", provider: "anthropic", model: "m", usage: { cacheRead: 50_000 } });
    const text = [
      line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" }),
      msg("1", null, user("first")),
      msg("2", "1", { ...assistant("a1"), timestamp: Date.parse("2026-01-01T10:00:00.000Z") }),
      warm("3", "2", "2026-01-01T10:04:30.000Z"),
      warm("4", "3", "2026-01-01T10:09:00.000Z"),
      line({ type: "usage", id: "5", parentId: "4", timestamp: "2026-01-01T10:10:00.000Z", kind: "compaction", usage: {} }),
      msg("6", "5", user("second")),
      line({
        type: "message",
        id: "7",
        parentId: "6",
        timestamp: "2026-01-01T10:12:00.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "a2" }] },
      }),
      warm("8", "7", "not a time"),
      msg("9", "8", user("third")),
      msg("10", "9", { ...assistant("a3"), timestamp: Date.parse("2026-01-01T11:00:00.000Z") }),
    ].join("\n");
    const s = parseSession(text);
    expect(s.problems).toEqual([]);
    expect(s.requests.map((r) => r.at)).toEqual([
      Date.parse("2026-01-01T10:00:00.000Z"),
      Date.parse("2026-01-01T10:12:00.000Z"),
      Date.parse("2026-01-01T11:00:00.000Z"),
    ]);
    expect(s.requests[1]!.warms).toEqual([Date.parse("2026-01-01T10:04:30.000Z"), Date.parse("2026-01-01T10:09:00.000Z")]);
    expect(s.requests[0]!.warms).toBeUndefined();
    expect(s.requests[2]!.warms).toBeUndefined();
    expect(s.trailingWarms).toBeUndefined();
    // Refreshes after the last call: the user did not come back in time (still paid).
    const later = parseSession(`${text}\n${warm("11", "10", "2026-01-01T11:04:30.000Z")}`);
    expect(later.trailingWarms).toEqual([Date.parse("2026-01-01T11:04:30.000Z")]);
    expect(later.requests).toHaveLength(3);
    // Usage entries are never messages.
    expect(s.requests[2]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });

  it("leaves out pi 0.74+ system messages (prompt and tool declarations), as pi's context event does", () => {
    const text = [
      line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" }),
      line({ type: "model_change", id: "0", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", provider: "p", modelId: "m" }),
      msg("1", "0", { role: "system", content: "", sections: { preamble: "You are..." }, toolsAdded: [{ name: "read" }], timestamp: 1 }),
      msg("2", "1", user("q")),
      msg("3", "2", assistant("a")),
    ].join("\n");
    const s = parseSession(text);
    expect(s.problems).toEqual([]);
    expect(s.requests.map((r) => r.messages.map((m) => m.role))).toEqual([["user"]]);
  });

  it("rebuilds the context at a compaction: summary, then the kept messages", () => {
    const text = [
      msg("1", null, user("old")),
      msg("2", "1", assistant("a1")),
      msg("3", "2", user("kept")),
      msg("4", "3", assistant("a2")),
      line({ type: "compaction", id: "5", parentId: "4", timestamp: "2026-01-01T00:00:00.000Z", summary: "S", firstKeptEntryId: "3", tokensBefore: 100 }),
      msg("6", "5", user("new")),
      msg("7", "6", assistant("a3")),
    ].join("\n");
    const s = parseSession(text);
    expect(s.requests.at(-1)!.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant", "user"]);
    expect(s.problems[0]).toMatch(/no session header/);
  });

  it("reports malformed lines by number, skips them and goes on", () => {
    const text = [
      line({ type: "session", version: 3, id: "s" }),
      msg("1", null, user("q")),
      "{not json",
      "[1,2]",
      line({ type: "message", parentId: "1" }),
      msg("2", "1", assistant("a")),
    ].join("\n");
    const s = parseSession(text, "x.jsonl");
    expect(s.problems).toEqual([
      expect.stringMatching(/^line 3: not valid JSON/),
      "line 4: expected a JSON object; skipped",
      "line 5: entry without an id (type message); skipped",
    ]);
    expect(s.requests).toHaveLength(1);
  });

  it("does not count calls that failed before reaching a model: an error without usage, aborted before any output", () => {
    const usage = { input: 1_200, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 1_240 };
    const text = [
      line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" }),
      msg("1", null, user("q1")),
      msg("2", "1", {
        role: "assistant",
        content: [],
        stopReason: "error",
        errorMessage: "401 invalid x-api-key",
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
        timestamp: 1,
      }),
      msg("3", "2", { role: "assistant", content: [], stopReason: "error", errorMessage: "fetch failed", timestamp: 1 }),
      msg("4", "3", { role: "assistant", content: [{ type: "text", text: "" }], stopReason: "aborted", timestamp: 1 }),
      msg("5", "4", { role: "assistant", content: [{ type: "text", text: "a1" }], stopReason: "stop", usage, timestamp: 1 }),
      msg("6", "5", user("q2")),
      // Reached the model: an error after output (a cut stream) and an abort with output are real, billed calls.
      msg("7", "6", { role: "assistant", content: [{ type: "text", text: "partial" }], stopReason: "error", errorMessage: "overloaded", usage, timestamp: 1 }),
      msg("8", "7", { role: "assistant", content: [{ type: "text", text: "half an answer" }], stopReason: "aborted", timestamp: 1 }),
    ].join("\n");
    const s = parseSession(text);
    expect(s.requests.map((r) => r.turn)).toEqual([1, 2, 2]);
    expect(s.failedCalls).toBe(3);
    expect(s.problems).toEqual(["3 model call(s) failed before reaching a model (an error without usage, or aborted before any output); not counted"]);
  });

  it("shares the context between model calls: each call's messages are the same objects as the one before, no copy kept per call", () => {
    const lines = [line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" }), msg("0", null, user("q"))];
    for (let i = 1; i <= 200; i++) lines.push(msg(String(i), String(i - 1), assistant(`a${i}`)));
    const s = parseSession(lines.join("\n"));
    expect(s.requests).toHaveLength(200);
    expect(s.requests[199]!.messages).toHaveLength(200);
    expect(s.requests[199]!.messages[50]).toBe(s.requests[100]!.messages[50]);
    // No array of messages is held per call: what a call holds is a reference and a length.
    for (const r of s.requests) expect(Object.getOwnPropertyDescriptor(r, "messages")?.value).toBeUndefined();
  });

  it("replays at most MAX_REPLAYED_CALLS model calls of a session, and says so", () => {
    function* chain(): Generator<string> {
      yield line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" });
      yield msg("0", null, user("q"));
      for (let i = 1; i <= MAX_REPLAYED_CALLS + 5; i++) yield msg(String(i), String(i - 1), assistant("k"));
    }
    const s = parseSessionLines(chain());
    expect(s.requests).toHaveLength(MAX_REPLAYED_CALLS);
    expect(s.problems.join("\n")).toMatch(
      new RegExp(`${MAX_REPLAYED_CALLS.toLocaleString("en-US")} model calls.*${(MAX_REPLAYED_CALLS + 5).toLocaleString("en-US")}`),
    );
  });

  it("keeps nothing of lines it cannot use: a million empty objects are counted, not stored (memory: test/bench/replay-read.bench.ts)", () => {
    let made = 0;
    function* empties(): Generator<string> {
      yield line({ type: "session", version: 3, id: "s", timestamp: "", cwd: "/" });
      yield msg("1", null, user("q"));
      for (let i = 0; i < 1_000_000; i++, made++) yield "{}";
      yield msg("2", "1", assistant("a"));
    }
    const s = parseSessionLines(empties(), "x.jsonl");
    expect(made).toBe(1_000_000);
    expect(s.requests).toHaveLength(1);
    expect(s.entries).toBe(2);
    expect(s.problems.length).toBeLessThanOrEqual(101);
    expect(s.problems.join("\n")).toMatch(/999,900 more entries without an id; skipped/);
  });
});

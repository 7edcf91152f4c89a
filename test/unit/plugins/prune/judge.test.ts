/**
 * The one decision entry (judge.ts `MessageJudge.decide`): one message, its facts and the step that
 * covers it in; one decision of one kind out, with the checks in the documented order.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { messageChars } from "../../../../lib/size/index.ts";
import { type PruneOptions, pruneDefaults, rulesFor } from "../../../../plugins/prune/config.ts";
import type { CallInfo } from "../../../../plugins/prune/decide.ts";
import { type Facts, MessageJudge } from "../../../../plugins/prune/judge.ts";
import { PIN_MARKER, USER_PIN_MARKER } from "../../../../plugins/prune/pin-marker.ts";
import { isPrunedMessage } from "../../../../plugins/prune/pruned-mark.ts";
import type { PinRecord } from "../../../../plugins/prune/records.ts";

const BIG = "x".repeat(5_000);
let clock = 0;
const user = (text: string): AgentMessageLike => ({ role: "user", content: [{ type: "text", text }], timestamp: ++clock });
const call = (id: string, name: string, args: Record<string, unknown>): AgentMessageLike => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  timestamp: ++clock,
});
const result = (id: string, name: string, text: string, extra: Record<string, unknown> = {}): AgentMessageLike =>
  ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: ++clock, ...extra }) as AgentMessageLike;

/** A judge over `messages` (every call known), with `pins` and `options`, and a decision function for index i. */
function judgeOf(messages: AgentMessageLike[], options: Partial<PruneOptions> = {}, pins: string[] = []) {
  const o = { ...pruneDefaults, ...options };
  const calls = new Map<string, CallInfo>();
  for (const m of messages)
    if (m.role === "assistant")
      for (const b of m.content as Array<{ type: string; id: string; name: string; arguments: Record<string, unknown> }>)
        if (b.type === "toolCall") calls.set(b.id, { name: b.name, args: b.arguments });
  const pinMap = new Map<string, PinRecord>(pins.map((id) => [id, { toolCallId: id, toolName: "read" }]));
  const judge = new MessageJudge(o, { normal: rulesFor(o, "normal"), tight: rulesFor(o, "tight") }, calls, pinMap, { cwd: "/repo" });
  const facts: Facts[] = messages.map((m) => ({ fp: String(m.timestamp), chars: messageChars(m), blocks: 1, turnKey: undefined, decisions: {} }));
  const starts = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const turnsBefore = (index: number) => starts.filter((s) => s < index).length;
  const upTo = starts[starts.length - 1]!;
  return (i: number, mode: "normal" | "tight" = "normal") =>
    judge.decide(facts[i]!, messages[i]!, { from: 0, upTo, mode }, messages, turnsBefore, turnsBefore(upTo));
}

describe("MessageJudge.decide: the one decision entry", () => {
  it("keeps user messages and assistant text, whatever their size", () => {
    const messages = [user(BIG), { role: "assistant", content: [{ type: "text", text: BIG }], timestamp: ++clock } as AgentMessageLike, user("now")];
    const decide = judgeOf(messages, { maxToolChars: 0 });
    expect(decide(0).kind).toBe("keep");
    expect(decide(1).kind).toBe("keep");
  });

  it("gives a large result a placeholder, and keeps a small one of a tool not in pruneTools", () => {
    const messages = [
      user("q1"),
      call("c1", "grep", { pattern: "a" }),
      result("c1", "grep", BIG),
      call("c2", "grep", { pattern: "b" }),
      result("c2", "grep", "small"),
      user("q2"),
    ];
    const decide = judgeOf(messages);
    const big = decide(2);
    expect(big.kind).toBe("placeholder");
    expect(isPrunedMessage(big.replacement)).toBe(true);
    expect(big.savedChars).toBe(messageChars(messages[2]!) - messageChars(big.replacement!));
    expect(decide(4)).toMatchObject({ kind: "keep", replacement: undefined, savedChars: 0 });
  });

  it("a user pin wins over every rule: the marker view, never a placeholder (kept when the marker is there)", () => {
    const messages = [user("q1"), call("c1", "read", { path: "a.ts" }), result("c1", "read", BIG), user("q2")];
    const pinned = judgeOf(messages, {}, ["c1"])(2);
    expect(pinned.kind).toBe("pin");
    expect(pinned.savedChars).toBe(0);
    expect(JSON.stringify(pinned.replacement)).toContain(USER_PIN_MARKER.trim().slice(0, 20));
    const marked = [user("q1"), call("c1", "read", { path: "a.ts" }), result("c1", "read", BIG, { details: { pinned: true } }), user("q2")];
    expect(judgeOf(marked, {}, ["c1"])(2).kind).toBe("keep");
  });

  it("keeps a result pinned on arrival even in tight mode with every tool prunable", () => {
    const messages = [
      user("q1"),
      call("c1", "kota_impact", {}),
      result("c1", "kota_impact", `${PIN_MARKER}\n${BIG}`, { details: { pinned: true } }),
      user("q2"),
    ];
    expect(judgeOf(messages)(2, "tight").kind).toBe("keep");
  });

  it("keeps a result of a call on a protected path before any other rule", () => {
    const messages = [
      user("q1"),
      call("c1", "read", { path: "deps/yarn.lock" }),
      result("c1", "read", BIG),
      call("c2", "read", { path: "deps/yarn.lock" }),
      result("c2", "read", BIG),
      user("q2"),
    ];
    expect(judgeOf(messages, { protectedFilePatterns: ["*.lock"] })(2).kind).toBe("keep");
    expect(judgeOf(messages)(2).kind).toBe("duplicate");
  });

  it("names the newer identical call for a duplicate, and the changing call for a stale read", () => {
    const dup = [
      user("q1"),
      call("c1", "read", { path: "a.ts" }),
      result("c1", "read", BIG),
      call("c2", "read", { path: "a.ts" }),
      result("c2", "read", BIG),
      user("q2"),
    ];
    const d = judgeOf(dup)(2);
    expect(d.kind).toBe("duplicate");
    expect(d.summary).toContain("c2");
    const stale = [
      user("q1"),
      call("c1", "read", { path: "a.ts" }),
      result("c1", "read", BIG),
      call("e1", "edit", { path: "a.ts", oldText: "x", newText: "y" }),
      result("e1", "edit", "ok"),
      user("q2"),
    ];
    const s = judgeOf(stale)(2);
    expect(s.kind).toBe("stale");
    expect(s.summary).toContain("e1");
    // With the strategies off the same results get the mode's own placeholder.
    expect(judgeOf(dup, { dedup: false })(2).kind).toBe("placeholder");
    expect(judgeOf(stale, { staleReads: false })(2).kind).toBe("placeholder");
  });

  it("cuts the long arguments of a completed call in an assistant message", () => {
    const messages = [user("q1"), call("w1", "write", { path: "b.ts", content: BIG }), result("w1", "write", "ok"), user("q2")];
    const cut = judgeOf(messages)(1);
    expect(cut.kind).toBe("arguments");
    expect(cut.savedChars).toBeGreaterThan(4_000);
    expect(judgeOf(messages, { maxArgChars: 0 })(1).kind).toBe("keep");
  });
});

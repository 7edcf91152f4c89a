import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { MessageIdentities } from "../../../../lib/context/index.ts";

const result = (text: string, timestamp?: number): AgentMessageLike => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  ...(timestamp === undefined ? {} : { timestamp }),
});
const user = (text: string, timestamp: number): AgentMessageLike => ({ role: "user", content: [{ type: "text", text }], timestamp });

/** A table with `messages` recorded at indexes 0.. */
function table(...messages: AgentMessageLike[]): MessageIdentities {
  const t = new MessageIdentities();
  messages.forEach((m, i) => t.record(i, m));
  return t;
}

describe("message identity (the same message at the same index)", () => {
  it("recognises the same object and a deep copy of the same message", () => {
    const m = result("x".repeat(5000), 7);
    const u = user("hi", 6);
    const t = table(u, m);
    expect(t.matches(0, u)).toBe(true);
    expect(t.matches(1, structuredClone(m))).toBe(true);
    expect(t.matches(0, structuredClone(u))).toBe(true);
  });

  it("rejects another message at the same index, anything past the end, and anything without a timestamp", () => {
    const m = result("x".repeat(5000), 7);
    const t = table(m);
    expect(t.matches(0, result("x".repeat(5000), 8))).toBe(false);
    expect(t.matches(0, { ...m, toolCallId: "c2" })).toBe(false);
    expect(t.matches(0, { ...m, isError: true })).toBe(false);
    expect(t.matches(0, user("x", 7))).toBe(false);
    expect(t.matches(1, m)).toBe(false);
    const untimed = result("abc");
    const u = table(untimed);
    expect(u.matches(0, untimed)).toBe(true);
    expect(u.matches(0, structuredClone(untimed))).toBe(false);
    expect(table({ ...m, timestamp: "7" } as AgentMessageLike).matches(0, structuredClone({ ...m, timestamp: "7" } as AgentMessageLike))).toBe(false);
  });

  it("is pi's identity of a message: it never reads the content (pi does not edit a message in place)", () => {
    const m = result("x".repeat(5000), 7);
    // Reading a content block of every message on every call is what made long sessions slow.
    const content = new Proxy([], {
      get: () => {
        throw new Error("content read");
      },
    });
    expect(table(m).matches(0, { ...m, content } as AgentMessageLike)).toBe(true);
  });

  it("scan reports only the messages not recognised at their index, and forgets the indexes past the end", () => {
    const history = [user("a", 1), result("r", 2), user("b", 3), result("s", 4)];
    const t = table(...history);
    const copy = structuredClone(history);
    copy[1] = { ...copy[1]!, toolCallId: "other" } as AgentMessageLike;
    const seen: number[] = [];
    t.scan([...copy, user("new", 5)], (i, m) => {
      seen.push(i);
      t.record(i, m);
    });
    expect(seen).toEqual([1, 4]);
    expect(t.length).toBe(5);
    t.scan(structuredClone(copy.slice(0, 2)), () => expect.unreachable());
    expect(t.length).toBe(2);
  });

  it("forgets truncated indexes", () => {
    const a = user("a", 1);
    const b = user("b", 2);
    const t = table(a, b);
    t.truncate(1);
    expect(t.length).toBe(1);
    expect(t.matches(1, b)).toBe(false);
    t.record(1, b);
    expect(t.matches(1, structuredClone(b))).toBe(true);
  });
});

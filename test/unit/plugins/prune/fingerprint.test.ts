import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "../../../../core/index.ts";
import { fingerprint, fnv1a, matchesQuickKey, quickKey } from "../../../../plugins/prune/fingerprint.ts";

const result = (text: string, timestamp?: number): AgentMessageLike => ({ role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text }], isError: false, ...(timestamp === undefined ? {} : { timestamp }) });

describe("message identity", () => {
  it("the quick key recognises a deep copy of the same message", () => {
    const m = result("x".repeat(5000), 7);
    expect(matchesQuickKey(structuredClone(m), quickKey(m))).toBe(true);
  });

  it("the quick key rejects another message at the same index, and anything without a timestamp", () => {
    const m = result("x".repeat(5000), 7);
    expect(matchesQuickKey(result("x".repeat(5000), 8), quickKey(m))).toBe(false);
    expect(matchesQuickKey(result("x".repeat(4999), 7), quickKey(m))).toBe(false);
    expect(matchesQuickKey({ ...m, isError: true }, quickKey(m))).toBe(false);
    const untimed = result("abc");
    expect(matchesQuickKey(structuredClone(untimed), quickKey(untimed))).toBe(false);
  });

  it("the fingerprint is stable across copies and changes with content, pins and blob ids", () => {
    const m = result("y".repeat(3000));
    expect(fingerprint(structuredClone(m))).toBe(fingerprint(m));
    expect(fingerprint(result(`z${"y".repeat(2999)}`))).not.toBe(fingerprint(m));
    expect(fingerprint({ ...m, details: { pinned: true } })).not.toBe(fingerprint(m));
    expect(fingerprint({ ...m, details: { blobId: "b1" } })).not.toBe(fingerprint(m));
  });

  it("fnv1a is deterministic and seed-dependent", () => {
    expect(fnv1a("hello")).toBe("4f9f2cab");
    expect(fnv1a("hello", 1)).not.toBe(fnv1a("hello"));
  });
});

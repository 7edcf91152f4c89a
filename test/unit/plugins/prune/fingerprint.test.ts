import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { fnv1a } from "../../../../lib/context/index.ts";
import { fingerprint } from "../../../../plugins/prune/fingerprint.ts";

const result = (text: string, timestamp?: number): AgentMessageLike => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  ...(timestamp === undefined ? {} : { timestamp }),
});

describe("message fingerprint", () => {
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

import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { pruneDefaults, rulesFor } from "../../../../plugins/prune/config.ts";
import { decide, KEEP, prunableReason, relatedDecision } from "../../../../plugins/prune/decide.ts";
import { PRUNED_PREFIX } from "../../../../plugins/prune/placeholder.ts";
import { isPrunedMessage } from "../../../../plugins/prune/pruned-mark.ts";

const rules = rulesFor(pruneDefaults, "normal");
const result = (text: string): AgentMessageLike =>
  ({ role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text }], isError: false }) as AgentMessageLike;
const calls = new Map([["c1", { name: "bash", args: { command: "cat spoof.txt" } }]]);

describe("decide: pruned results are known by pruning's mark, not by their text", () => {
  it("prunes a large output that starts with the placeholder prefix", () => {
    const spoof = result(`${PRUNED_PREFIX}read(path="x") [10 chars]. ${"keep me ".repeat(2_000)}`);
    const d = decide(spoof, rules, calls);
    expect(d.replacement).toBeDefined();
    expect(d.savedChars).toBeGreaterThan(15_000);
    expect(isPrunedMessage(spoof)).toBe(false);
    expect(isPrunedMessage(d.replacement)).toBe(true);
  });

  it("keeps a replacement it made (never a placeholder of a placeholder)", () => {
    const d = decide(result("y".repeat(20_000)), rules, calls);
    expect(decide(d.replacement!, { ...rules, maxToolChars: 0 }, calls)).toBe(KEEP);
  });
});

describe("decide: the mode's placeholder rules", () => {
  const r = (toolName: string, text: string, isError = false) =>
    ({ role: "toolResult", toolCallId: "c1", toolName, content: [{ type: "text", text }], isError }) as unknown as Parameters<typeof prunableReason>[0];

  it("prunes by size, by tool, and snippet answers; never a neverPruneTools result; short errors stay", () => {
    const tight = { ...rules, pruneTools: new Set(["read"]), snippetTools: new Set(["search"]), neverPruneTools: new Set(["status"]) };
    expect(prunableReason(r("grep", ""), 5_000, tight, undefined)).toBe("size");
    expect(prunableReason(r("read", ""), 10, tight, undefined)).toBe("tool");
    expect(prunableReason(r("search", ""), 10, tight, { name: "search", args: { output: "snippet" } })).toBe("snippet");
    expect(prunableReason(r("search", ""), 10, tight, { name: "search", args: { output: "paths" } })).toBeUndefined();
    expect(prunableReason(r("status", ""), 5_000, tight, undefined)).toBeUndefined();
    expect(prunableReason(r("read", "", true), 10, tight, undefined)).toBeUndefined();
    expect(prunableReason(r("read", "", true), 5_000, tight, undefined)).toBe("size");
  });

  it("names its kind: placeholder by the rules, duplicate or stale by a relation, keep when not shorter", () => {
    expect(decide(result("y".repeat(20_000)), rules, calls).kind).toBe("placeholder");
    expect(decide(result("short"), rules, calls)).toBe(KEEP);
    const big = result("y".repeat(20_000));
    expect(relatedDecision(big, { kind: "duplicate", newerCallId: "c9" }, rules, calls.get("c1")).kind).toBe("duplicate");
    expect(relatedDecision(big, { kind: "stale", path: "a.ts", changedByCallId: "e1", changedByTool: "edit" }, rules, calls.get("c1")).kind).toBe("stale");
    expect(relatedDecision(result("tiny"), { kind: "duplicate", newerCallId: "c9" }, rules, calls.get("c1"))).toBe(KEEP);
  });
});

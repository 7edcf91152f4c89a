import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "../../../../core/index.ts";
import { pruneDefaults, rulesFor } from "../../../../plugins/prune/config.ts";
import { decide, KEEP } from "../../../../plugins/prune/decide.ts";
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

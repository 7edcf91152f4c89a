import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { memorySessionStore } from "../../../../core/services.ts";
import { pruneDefaults } from "../../../../plugins/prune/config.ts";
import { SessionPruner } from "../../../../plugins/prune/pruner.ts";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";

const usage = { tokens: null, contextWindow: 200_000, percent: null };
const options = { ...pruneDefaults, adaptive: false, minStepTokens: 0, minStepPercent: 0, cacheAware: false };

function history(): AgentMessageLike[] {
  const requests = parseSession(
    generateSession({ turns: 40, seed: 7 })
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).requests;
  return requests[requests.length - 1]!.messages;
}

describe("the pruner's rendered-prefix cache", () => {
  it("a growing session gets, call by call, exactly what a pruner with the same steps renders from scratch", () => {
    const all = history();
    const store = memorySessionStore();
    const incremental = new SessionPruner(options, () => store);
    for (let n = 20; n <= all.length; n += 9) {
      const sent = incremental.run(structuredClone(all.slice(0, n)), usage);
      // A new pruner on the same store resolves the same steps and renders the whole prefix itself.
      const fresh = new SessionPruner({ ...options, minStepTokens: 1e9, forceStepPercent: 1000 }, () => store);
      expect(JSON.stringify(fresh.run(structuredClone(all.slice(0, n)), usage))).toBe(JSON.stringify(sent));
    }
  });

  it("a pin made after the prefix was cached shows on the next call", () => {
    const all = history();
    const pruner = new SessionPruner(options, memorySessionStore);
    const first = pruner.run(all, usage);
    const placeholdersBefore = pruner.lastReport!.placeholders;
    const index = first.findIndex((m, i) => m !== all[i] && m.role === "toolResult");
    expect(index).toBeGreaterThanOrEqual(0);
    const target = all[index] as { toolCallId?: string; toolName?: string };
    expect(pruner.pin(target.toolCallId!, target.toolName ?? "tool")).toBe(true);
    const again = pruner.run(all, usage);
    expect(JSON.stringify(again[index])).toContain(JSON.stringify((all[index]!.content as Array<{ text?: string }>)[0]!.text).slice(1, 60));
    expect(pruner.lastReport!.placeholders).toBe(placeholdersBefore - 1);
  });
});

import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { memorySessionStore } from "../../../../core/services.ts";
import { pruneDefaults, type PruneOptions } from "../../../../plugins/prune/config.ts";
import { isPlaceholder } from "../../../../plugins/prune/placeholder.ts";
import { SessionPruner } from "../../../../plugins/prune/pruner.ts";
import { STEP_KIND } from "../../../../plugins/prune/records.ts";
import { messagesChars } from "../../../../plugins/prune/size.ts";

/** A history of `turns` turns, each one `read` of `size` characters. */
function history(turns: number, size = 4000): AgentMessageLike[] {
  const out: AgentMessageLike[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: [{ type: "text", text: `turn ${t}` }], timestamp: 1000 + t * 10 });
    out.push({ role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}.ts` } }], timestamp: 1001 + t * 10 });
    out.push({
      role: "toolResult",
      toolCallId: `c${t}`,
      toolName: "read",
      content: [{ type: "text", text: "x".repeat(size) }],
      isError: false,
      timestamp: 1002 + t * 10,
    });
    out.push({ role: "assistant", content: [{ type: "text", text: `done ${t}` }], timestamp: 1003 + t * 10 });
  }
  return out;
}
const pruned = (out: AgentMessageLike[]) => out.filter((m) => m.role === "toolResult" && isPlaceholder((m.content as Array<{ text: string }>)[0]!.text)).length;
const usage = (tokens: number | null, contextWindow = 100_000) => ({ tokens, contextWindow, percent: null });
const base: PruneOptions = { ...pruneDefaults, adaptive: false, cacheAware: false, minStepTokens: 0, minStepPercent: 0 };

describe("SessionPruner", () => {
  it("prunes prunable results older than the last keepRecentTurns turns", () => {
    const out = new SessionPruner(base, memorySessionStore).run(history(5), usage(null));
    expect(pruned(out)).toBe(3);
    expect(out.slice(-8)).toEqual(history(5).slice(-8));
  });

  it("moves the boundary only when a step frees at least minStepTokens", () => {
    const store = memorySessionStore();
    const p = new SessionPruner({ ...base, minStepTokens: 2500 }, () => store);
    // 4 turns: 2 old reads of 4,000 chars = ~2,000 tokens freed: below the step size.
    expect(pruned(p.run(history(4), usage(null)))).toBe(0);
    // 5 turns: ~3,000 tokens freed: one step covers all three old turns.
    expect(pruned(p.run(history(5), usage(null)))).toBe(3);
    expect(store.entries(STEP_KIND)).toHaveLength(1);
  });

  it("with cacheAware, waits until carrying the prunable output has cost more than one cache rewrite", () => {
    const p = new SessionPruner({ ...base, cacheAware: true, minStepTokens: 0, minStepPercent: 0, forceStepPercent: 1000 }, memorySessionStore);
    const h = history(6);
    let calls = 0;
    while (pruned(p.run(h, usage(null, 1_000_000))) === 0) calls++;
    // ~4,000 tokens pending at 0.1x per call against a ~1.15 x 2,000-token rewrite: a few calls, not the first.
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(20);
  });

  it("steps regardless of cache cost once the prompt reaches forceStepPercent of the window", () => {
    const p = new SessionPruner({ ...base, cacheAware: true, minStepTokens: 100_000, forceStepPercent: 10 }, memorySessionStore);
    expect(pruned(p.run(history(6), usage(null, 20_000)))).toBe(4);
  });

  it("leaves folded messages out of its sizes: output inside a fold never makes a step", () => {
    const p = new SessionPruner({ ...base, cacheAware: false, forceStepPercent: 1000 }, memorySessionStore);
    const h = history(6);
    // Turns 1-4 (messages 0-15) are folded: all the output a step would prune is not sent anyway.
    for (let call = 0; call < 5; call++) expect(pruned(p.run(structuredClone(h), usage(null), [[0, 16]]))).toBe(0);
    expect(p.stepCount).toBe(0);
    expect(p.lastReport!.rawTokens).toBe(Math.ceil(messagesChars(h.slice(16)) / 4));
    expect(pruned(p.run(structuredClone(h), usage(null)))).toBe(4);
  });

  it("steps with the request that applies a new fold: the fold rewrites the prompt anyway", () => {
    const options = { ...base, cacheAware: true, forceStepPercent: 1000 };
    const h = history(6);
    const fold: AgentMessageLike[] = [
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "f1", name: "context_fold", arguments: { from: "c0", to: "c0", summary: "read f0.ts" } }],
        timestamp: 2000,
      },
      { role: "toolResult", toolCallId: "f1", toolName: "context_fold", content: [{ type: "text", text: "Folded turn 1." }], isError: false, timestamp: 2001 },
    ];
    // `[]`: the fold plugin runs (its service answered), no fold is in force yet.
    const p = new SessionPruner(options, memorySessionStore);
    expect(p.run(structuredClone(h), usage(null, 1_000_000), []) && p.lastReport!.stepped).toBe(false);
    p.run([...structuredClone(h), ...fold], usage(null, 1_000_000), []);
    expect(p.lastReport!.stepped).toBe(true);
    // Without the fold plugin a fold result changes nothing; without the fold the cache-cost rule still waits.
    const r = new SessionPruner(options, memorySessionStore);
    r.run(structuredClone(h), usage(null, 1_000_000));
    r.run([...structuredClone(h), ...fold], usage(null, 1_000_000));
    expect(r.lastReport!.stepped).toBe(false);
    const q = new SessionPruner(options, memorySessionStore);
    q.run(structuredClone(h), usage(null, 1_000_000));
    q.run(structuredClone(h), usage(null, 1_000_000));
    expect(q.lastReport!.stepped).toBe(false);
  });

  it("keeps its boundary across /reload: a new pruner on the same store sends the same context", () => {
    const store = memorySessionStore();
    const first = new SessionPruner({ ...base, minStepTokens: 2500 }, () => store).run(history(5), usage(null));
    const reloaded = new SessionPruner({ ...base, minStepTokens: 1_000_000 }, () => store);
    expect(reloaded.run(structuredClone(history(5)), usage(null))).toEqual(first);
    expect(reloaded.run(structuredClone(history(6)), usage(null))).toEqual([...first, ...history(6).slice(-4)]);
  });

  it("switches to tight mode above the enter threshold and back only below the exit threshold", () => {
    const p = new SessionPruner({ ...base, adaptive: true, adaptiveEnterPercent: 60, adaptiveExitPercent: 40 }, memorySessionStore);
    const h = history(3, 100);
    const modeAt = (tokens: number) => {
      p.run(h, usage(tokens));
      return p.mode;
    };
    expect(modeAt(10_000)).toBe("normal");
    expect(modeAt(61_000)).toBe("tight");
    expect(modeAt(50_000)).toBe("tight"); // between the thresholds: no flip
    expect(modeAt(39_000)).toBe("normal");
    expect(modeAt(50_000)).toBe("normal");
  });

  it("measures usage before pruning: the history's own size keeps tight mode on after pruning shrank the prompt", () => {
    const p = new SessionPruner({ ...base, adaptive: true, contextWindow: 10_000, adaptiveEnterPercent: 60, adaptiveExitPercent: 40 }, memorySessionStore);
    const h = history(8, 4000); // ~8,000 tokens of history: 80% of a 10k window
    for (let i = 0; i < 5; i++) {
      p.run(h, usage(1000, 10_000)); // pi's figure (the pruned prompt) is low
      expect(p.mode).toBe("tight");
    }
  });

  it("in tight mode keeps fewer turns and cuts smaller results", () => {
    const options = { ...base, adaptive: true, contextWindow: 1000, maxToolChars: 1200, adaptiveMaxToolChars: 800, pruneTools: [], adaptivePruneTools: [] };
    const out = new SessionPruner(options, memorySessionStore).run(history(4, 1000), usage(null, 1000));
    expect(pruned(out)).toBe(3); // 1,000-char results: over 800 (tight), and only the last turn is kept
    const normal = new SessionPruner({ ...options, adaptive: false }, memorySessionStore).run(history(4, 1000), usage(null, 1000));
    expect(pruned(normal)).toBe(0); // under 1,200 and not a prunable tool
  });

  it("reuses its per-message decisions on the next call (fresh copies of the same history)", () => {
    const p = new SessionPruner(base, memorySessionStore);
    const first = p.run(structuredClone(history(5)), usage(null));
    const second = p.run(structuredClone(history(6)), usage(null));
    // The placeholders of the old turns are the very same objects: built once, not per call.
    expect(second[2]).toBe(first[2]);
    expect(second[6]).toBe(first[6]);
  });

  it("recomputes a message that changed at the same index (a branch switch), keeps the rest", () => {
    const p = new SessionPruner(base, memorySessionStore);
    const first = p.run(structuredClone(history(5)), usage(null));
    const branched = structuredClone(history(5));
    branched[5] = { role: "assistant", content: [{ type: "toolCall", id: "other", name: "bash", arguments: { command: "ls" } }], timestamp: 5555 };
    branched[6] = {
      role: "toolResult",
      toolCallId: "other",
      toolName: "bash",
      content: [{ type: "text", text: "z".repeat(3000) }],
      isError: false,
      timestamp: 5556,
    };
    const second = p.run(branched, usage(null));
    expect(JSON.stringify(second[6]!.content)).toContain('(Pruned) bash(command=\\"ls\\")');
    expect(second[2]).toBe(first[2]);
  });

  it("sizes and turns kept from the last call match a fresh pruner's after appends, a branch switch and a compaction", () => {
    const p = new SessionPruner({ ...base, minStepTokens: 1e9 }, memorySessionStore);
    const fresh = (messages: AgentMessageLike[]) => {
      const q = new SessionPruner({ ...base, minStepTokens: 1e9 }, memorySessionStore);
      q.run(messages, usage(null));
      return { rawTokens: q.lastReport!.rawTokens, turns: q.lastReport!.turns };
    };
    const check = (messages: AgentMessageLike[]) => {
      p.run(structuredClone(messages), usage(null));
      expect({ rawTokens: p.lastReport!.rawTokens, turns: p.lastReport!.turns }).toEqual(fresh(messages));
    };
    check(history(5));
    check(history(6));
    const branched = history(6);
    branched.splice(
      9,
      15,
      { role: "user", content: [{ type: "text", text: "another way" }], timestamp: 9000 },
      { role: "assistant", content: [{ type: "text", text: "y".repeat(7000) }], timestamp: 9001 },
    );
    check(branched);
    check([...branched, { role: "user", content: [{ type: "text", text: "more" }], timestamp: 9002 }]);
    const compacted = [
      { role: "compactionSummary", summary: "s".repeat(800), tokensBefore: 9000, timestamp: 9100 } as AgentMessageLike,
      ...history(6).slice(12),
    ];
    check(compacted);
    check(compacted.slice(0, 3));
  });

  it("keeps results pinned in their details and shows user pins with a marker", () => {
    const h = history(5);
    (h[2] as { details?: unknown }).details = { pinned: true };
    const p = new SessionPruner(base, memorySessionStore);
    expect(p.pin("c1", "read")).toBe(true);
    expect(p.pin("c1", "read")).toBe(false);
    const out = p.run(h, usage(null));
    expect(out[2]).toBe(h[2]);
    expect((out[6]!.content as Array<{ text: string }>)[0]!.text).toMatch(/^\[pinned by the user/);
    expect(isPlaceholder((out[10]!.content as Array<{ text: string }>)[0]!.text)).toBe(true);
  });

  it("leaves user and assistant messages (text, thinking, tool calls) alone", () => {
    const h = history(5);
    h[1] = {
      role: "assistant",
      content: [{ type: "thinking", thinking: "t".repeat(5000), thinkingSignature: "sig" }, ...(h[1]!.content as unknown[])],
    } as AgentMessageLike;
    const out = new SessionPruner(base, memorySessionStore).run(h, usage(null));
    out.forEach((m, i) => {
      if (m.role !== "toolResult") expect(m).toBe(h[i]);
    });
  });

  it("records what each step pruned and how much it saved", () => {
    const p = new SessionPruner(base, memorySessionStore);
    p.run(history(5), usage(null));
    expect(p.actions).toHaveLength(1);
    expect(p.actions[0]!.results).toBe(3);
    expect(p.actions[0]!.savedChars).toBeGreaterThan(10_000);
    expect(p.actions[0]!.items[0]).toContain('read(path="f0.ts")');
    expect(p.lastReport?.placeholders).toBe(3);
  });
});

describe("SessionPruner and the clock", () => {
  const MINUTE = 60_000;
  /** history(6) and then the user's next prompt `gapMs` after the last reply. */
  const promptAfter = (gapMs: number): AgentMessageLike[] => {
    const h = history(6);
    const last = h[h.length - 1]!.timestamp as number;
    return [...h, { role: "user", content: [{ type: "text", text: "and now?" }], timestamp: last + gapMs }];
  };
  // The cache-cost rule alone would not step on a young session's first call (see "with cacheAware" above).
  const careful: PruneOptions = { ...base, cacheAware: true, forceStepPercent: 1000 };

  it("takes the pending step on a request that finds the cache cold (more than 300 s after the last reply): it costs no extra cache write", () => {
    const warm = new SessionPruner(careful, memorySessionStore);
    expect(pruned(warm.run(promptAfter(2 * MINUTE), usage(null, 1_000_000)))).toBe(0);
    expect(warm.lastReport!.cold).toBeUndefined();

    const cold = new SessionPruner(careful, memorySessionStore);
    expect(pruned(cold.run(promptAfter(6 * MINUTE), usage(null, 1_000_000)))).toBe(5);
    expect(cold.lastReport).toMatchObject({ stepped: true, cold: true, cacheLifetimeSeconds: 300 });
    expect(cold.actions.at(-1)!.cold).toBe(true);

    // `cacheLifetime: "off"`: the rule of earlier releases, which waits.
    const off = new SessionPruner({ ...careful, cacheLifetime: "off" }, memorySessionStore);
    expect(pruned(off.run(promptAfter(6 * MINUTE), usage(null, 1_000_000)))).toBe(0);
    expect(off.lastReport!.cacheLifetimeSeconds).toBeUndefined();
  });

  it("uses the lifetime the model declares, or the configured one, and counts the host's warming refreshes as a use", () => {
    // The model keeps entries an hour (pi's promptCache.long): ten minutes away is not cold.
    const hour = new SessionPruner(careful, memorySessionStore);
    expect(pruned(hour.run(promptAfter(10 * MINUTE), usage(null, 1_000_000), undefined, { lifetimeSeconds: 3600 }))).toBe(0);
    // The config's number wins over the model's.
    const short = new SessionPruner({ ...careful, cacheLifetime: 60 }, memorySessionStore);
    expect(pruned(short.run(promptAfter(2 * MINUTE), usage(null, 1_000_000), undefined, { lifetimeSeconds: 3600 }))).toBe(5);
    // pi refreshed the entry 8 minutes after the reply: 2 minutes later it is still warm.
    const h = promptAfter(10 * MINUTE);
    const reply = h[h.length - 2]!.timestamp as number;
    const warmed = new SessionPruner(careful, memorySessionStore);
    expect(pruned(warmed.run(h, usage(null, 1_000_000), undefined, { warmedAt: reply + 8 * MINUTE }))).toBe(0);
  });

  it("takes the steps on the first request of a resumed session: a new pruner, the last reply a day ago", () => {
    const store = memorySessionStore();
    const before = new SessionPruner(careful, () => store);
    expect(pruned(before.run(history(6), usage(null, 1_000_000)))).toBe(0);
    const resumed = new SessionPruner(careful, () => store);
    expect(pruned(resumed.run(promptAfter(24 * 60 * MINUTE), usage(null, 1_000_000)))).toBe(5);
    expect(resumed.lastReport!.cold).toBe(true);
  });

  it("reads no time from messages without usable timestamps: never cold", () => {
    const h = promptAfter(6 * MINUTE).map((m) => ({ ...m, timestamp: "yesterday" }) as AgentMessageLike);
    const p = new SessionPruner(careful, memorySessionStore);
    expect(pruned(p.run(h, usage(null, 1_000_000)))).toBe(0);
    expect(p.lastReport!.cold).toBeUndefined();
  });

  it("says what the next request rewrites anyway: after the first change of the step pending then", () => {
    const p = new SessionPruner(careful, memorySessionStore);
    p.run(history(6), usage(null, 1_000_000));
    // Pending before the next prompt: turns 1-4's reads (the boundary has not moved); the first change is turn 1's read.
    const idle = p.nextStepRewrite(true);
    expect(idle).toBeGreaterThan(0.9 * p.lastReport!.sentTokens);
    // Without a new turn the same step is pending (nothing was ever taken).
    expect(p.nextStepRewrite(false)).toBe(idle);
    // Once the boundary is at the last protected turn nothing is pending within the run.
    const eager = new SessionPruner(base, memorySessionStore);
    eager.run(history(6), usage(null));
    expect(eager.nextStepRewrite(false)).toBe(0);
    // A new turn moves the protected window by one: turn 5's read becomes pending, and everything from it on is rewritten.
    const fromTurn5Read = Math.ceil(messagesChars(history(6).slice(4 * 4 + 2)) / 4);
    expect(eager.nextStepRewrite(true)).toBe(fromTurn5Read);
    expect(eager.nextStepRewrite(true)).toBeLessThan(eager.lastReport!.sentTokens);
  });
});

/**
 * The pi adapter's prompt-cache binding: the model's declared lifetime and pi's recorded warming
 * refreshes reach the `context` event, and `cache_warming_decision` runs the `cacheWarming` hook,
 * answering only with a change (the rest is proven in a real pi 1.6 session, test/e2e).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fakePi } from "pi-governor/testing";
import { bindGovernor, createGovernor } from "pi-governor/host";
import { type CacheWarmingInfo, type ContextInfo, definePlugin, definePreset } from "pi-governor";
import { branchCacheFacts, declaredLifetime } from "../../../../host/pi/prompt-cache.ts";

const assistant = (at: string, usage = { input: 10, cacheRead: 9000, cacheWrite: 1000 }) => ({
  type: "message",
  id: `a${at}`,
  timestamp: at,
  message: { role: "assistant", usage, content: [], timestamp: Date.parse(at) },
});
const warm = (at: string) => ({ type: "usage", id: `w${at}`, kind: "cache_warm", timestamp: at, usage: { cacheRead: 10_000 } });
const user = (at: string) => ({ type: "message", id: `u${at}`, timestamp: at, message: { role: "user", content: "q", timestamp: Date.parse(at) } });

async function bound(answer: "warm" | "stop" | undefined) {
  const asked: CacheWarmingInfo[] = [];
  const contexts: ContextInfo[] = [];
  const plugin = definePlugin({
    name: "test:cache",
    configKey: "testCache",
    description: "",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.cacheWarming.tap("test:cache", (action, info) => {
        asked.push(info);
        return answer ?? action;
      });
      pipeline.hooks.context.tap("test:cache", (messages, info) => {
        contexts.push(info);
        return messages;
      });
    },
  });
  const preset = definePreset({ name: "t", description: "", plugins: () => [plugin()] });
  const governor = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [] });
  const { pi, handlers } = fakePi();
  bindGovernor(pi, governor, { cwd: "/tmp" });
  const branch: unknown[] = [user("2026-01-01T10:00:00.000Z"), assistant("2026-01-01T10:00:05.000Z")];
  const ctx = {
    cwd: "/tmp",
    hasUI: false,
    ui: { notify: () => {}, setStatus: () => {}, confirm: async () => false },
    model: { provider: "anthropic", id: "claude-sonnet-4-5", promptCache: { short: 300, long: 3600 } },
    isIdle: () => true,
    getContextUsage: () => undefined,
    sessionManager: { getSessionId: () => "s1", getBranch: () => branch },
  };
  const fire = async (name: string, event: Record<string, unknown>) => {
    const answers: unknown[] = [];
    for (const h of handlers.get(name) ?? []) answers.push(await h({ type: name, ...event }, ctx));
    return answers.filter((a) => a !== undefined);
  };
  return { fire, asked, contexts, branch, handlers };
}

describe("pi's prompt cache in the pipeline", () => {
  it("runs cache_warming_decision through the cacheWarming hook and answers only a change", async () => {
    const decision = { warmCost: 0.003, missCost: 0.035, continuationProbability: 0.15, action: "warm" };
    const stopping = await bound("stop");
    expect(await stopping.fire("cache_warming_decision", decision)).toEqual([{ action: "stop" }]);
    expect(stopping.asked[0]).toEqual({
      sessionId: "s1",
      warmCost: 0.003,
      missCost: 0.035,
      continuationProbability: 0.15,
      hostAction: "warm",
      idle: true,
      promptTokens: 10_010,
      model: { provider: "anthropic", id: "claude-sonnet-4-5" },
    });
    const agreeing = await bound(undefined);
    expect(await agreeing.fire("cache_warming_decision", decision)).toEqual([]);
  });

  it("hands the context event the model's lifetime, and pi's refresh time only after pi asked about one", async () => {
    const b = await bound(undefined);
    const messages = { messages: [] };
    await b.fire("context", messages);
    expect(b.contexts.at(-1)!.promptCache).toEqual({ lifetimeSeconds: 300 });
    // pi asked, refreshed 4.5 minutes later and the user prompts: the refresh is the cache's last use.
    await b.fire("cache_warming_decision", { warmCost: 0.003, missCost: 0.035, continuationProbability: 0.15, action: "warm" });
    b.branch.push(warm("2026-01-01T10:04:35.000Z"), user("2026-01-01T10:06:00.000Z"));
    await b.fire("context", messages);
    expect(b.contexts.at(-1)!.promptCache).toEqual({ lifetimeSeconds: 300, warmedAt: Date.parse("2026-01-01T10:04:35.000Z") });
    // The next request of the run: no new question, no branch read.
    await b.fire("context", messages);
    expect(b.contexts.at(-1)!.promptCache).toEqual({ lifetimeSeconds: 300 });
  });
});

describe("declaredLifetime and branchCacheFacts", () => {
  it("reads the tier of the retention in use, and nothing that is not a positive number", () => {
    const model = { promptCache: { short: 300, long: 3600 } };
    expect(declaredLifetime(model, {})).toBe(300);
    expect(declaredLifetime(model, { PI_CACHE_RETENTION: "long" })).toBe(3600);
    expect(declaredLifetime({ promptCache: { short: 300 } }, { PI_CACHE_RETENTION: "long" })).toBeUndefined();
    for (const bad of [undefined, null, {}, { promptCache: { short: "300" } }, { promptCache: { short: -1 } }, { promptCache: { short: Number.NaN } }])
      expect(declaredLifetime(bad, {})).toBeUndefined();
  });

  it("finds the newest refresh after the last reply and the reply's prompt size; refreshes before the reply do not count", () => {
    const sm = (branch: unknown[]) => ({ getBranch: () => branch });
    expect(branchCacheFacts(sm([warm("2026-01-01T09:00:00.000Z"), assistant("2026-01-01T10:00:00.000Z"), user("2026-01-01T10:09:00.000Z")]))).toEqual({
      promptTokens: 10_010,
    });
    expect(
      branchCacheFacts(
        sm([assistant("2026-01-01T10:00:00.000Z"), warm("2026-01-01T10:04:30.000Z"), warm("2026-01-01T10:09:00.000Z"), user("2026-01-01T10:10:00.000Z")]),
      ),
    ).toEqual({ warmedAt: Date.parse("2026-01-01T10:09:00.000Z"), promptTokens: 10_010 });
    // Hostile shapes: no branch, a bad timestamp, a usage of another kind.
    expect(branchCacheFacts({})).toEqual({});
    expect(
      branchCacheFacts(
        sm([
          { type: "usage", kind: "cache_warm", timestamp: "soon" },
          { type: "usage", kind: "compaction", timestamp: "2026-01-01T10:00:00.000Z" },
        ]),
      ),
    ).toEqual({});
  });
});

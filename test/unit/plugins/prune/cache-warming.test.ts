import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentMessageLike, type CacheWarmingInfo, definePlugin, definePreset } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { memorySessionStore, silentUi } from "../../../../core/services.ts";
import { answerWarming, HOST_MINIMUM_SAVINGS } from "../../../../plugins/prune/cache-warming.ts";
import { kotaPrune } from "../../../../presets/kota/prune-policy.ts";

/** pi's view of a refresh of a 20,000-token prompt: it warms (0.15 x $0.60 - $0.02 >= $0.05). */
const info = (over: Partial<CacheWarmingInfo> = {}): CacheWarmingInfo => ({
  sessionId: "s1",
  warmCost: 0.02,
  missCost: 0.6,
  continuationProbability: 0.15,
  hostAction: "warm",
  idle: true,
  promptTokens: 20_000,
  ...over,
});

describe("answerWarming", () => {
  it("stops a refresh when the next request rewrites most of the prompt anyway, and says what it weighed", () => {
    const a = answerWarming("warm", info(), 15_000, 16_000);
    expect(a.keptShare).toBeCloseTo(0.25);
    expect(a.expectedSavings).toBeCloseTo(0.15 * 0.6 * 0.25 - 0.02);
    expect(a.action).toBe("stop");
  });

  it("leaves pi's decision alone when the refresh still pays, when nothing is pending, or when pi (or another extension) already stopped", () => {
    // Keeps 90%: 0.15 x 0.60 x 0.9 - 0.02 = 0.061 >= 0.05.
    expect(answerWarming("warm", info(), 2000, 16_000).action).toBeUndefined();
    expect(answerWarming("warm", info(), 0, 16_000).action).toBeUndefined();
    // Never starts a warming pi did not want.
    expect(answerWarming("stop", info({ hostAction: "stop" }), 15_000, 16_000).action).toBeUndefined();
    // pi's threshold is the documented $0.05.
    expect(HOST_MINIMUM_SAVINGS).toBe(0.05);
  });

  it("uses the pruner's own size when the host reports none, and bounds the share to 0-1", () => {
    expect(answerWarming("warm", info({ promptTokens: undefined }), 8000, 16_000).keptShare).toBeCloseTo(0.5);
    expect(answerWarming("warm", info(), 50_000, 16_000).keptShare).toBe(0);
    expect(answerWarming("warm", info({ promptTokens: 0 }), 0, 0).keptShare).toBe(1);
  });
});

describe("the prune plugin answers the host's cache warming", () => {
  const history = (turns: number): AgentMessageLike[] =>
    Array.from({ length: turns }, (_, t) => [
      { role: "user", content: [{ type: "text", text: `q${t}` }], timestamp: 1000 + t * 10 },
      { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}` } }], timestamp: 1001 + t * 10 },
      {
        role: "toolResult",
        toolCallId: `c${t}`,
        toolName: "read",
        content: [{ type: "text", text: "y".repeat(6000) }],
        isError: false,
        timestamp: 1002 + t * 10,
      },
      { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: 1003 + t * 10 },
    ]).flat() as AgentMessageLike[];

  async function governor(prune: Record<string, unknown> = {}) {
    const events: Array<Record<string, unknown>> = [];
    const observer = definePlugin({
      name: "test:events",
      configKey: "testEvents",
      description: "records the answers",
      schema: z.object({}),
      defaults: {},
      apply(pipeline) {
        pipeline.hooks.event.tap("test:events", (e) => {
          if (e.type === "custom" && e.name === "cache_warming_answered") events.push(e.data as Record<string, unknown>);
        });
      },
    });
    const preset = definePreset({ name: "t", description: "", plugins: () => [kotaPrune(), observer()] });
    const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [{ kind: "project", source: "test", data: { prune } }] });
    g.attachSession("s1", silentUi, memorySessionStore());
    return { g, events };
  }
  const usage = { tokens: null, contextWindow: 1_000_000, percent: null };

  it("stops the refresh of a prompt whose old reads the next request prunes (a young session: the step waits), and leaves it when nothing is pending", async () => {
    const { g, events } = await governor();
    await g.pipeline.hooks.context.run(history(6), { sessionId: "s1", usage });
    // The prompt the refresh re-sends is these messages (plus 4,000 tokens of system prompt).
    const prompt = 4000 + Math.ceil(JSON.stringify(history(6)).length / 4);
    expect(await g.pipeline.hooks.cacheWarming.run("warm", info({ promptTokens: prompt }))).toBe("stop");
    expect(events.at(-1)).toMatchObject({ action: "stop", hostAction: "warm", idle: true });
    expect(events.at(-1)!.keptShare as number).toBeLessThan(0.5);
    // pi already stopped: pruning never starts it again.
    expect(await g.pipeline.hooks.cacheWarming.run("stop", info({ hostAction: "stop", promptTokens: prompt }))).toBe("stop");

    // Steps taken every turn (cache cost ignored): nothing is pending within the run, so pi decides.
    const eager = await governor({ cacheAware: false, adaptive: false });
    await eager.g.pipeline.hooks.context.run(history(6), { sessionId: "s1", usage });
    expect(await eager.g.pipeline.hooks.cacheWarming.run("warm", info({ idle: false, continuationProbability: 1 }))).toBe("warm");
  });

  it('with cacheLifetime "off", or before any request of the session, leaves every decision to pi', async () => {
    const off = await governor({ cacheLifetime: "off" });
    await off.g.pipeline.hooks.context.run(history(6), { sessionId: "s1", usage });
    expect(await off.g.pipeline.hooks.cacheWarming.run("warm", info())).toBe("warm");
    expect(off.events).toEqual([]);
    const fresh = await governor();
    expect(await fresh.g.pipeline.hooks.cacheWarming.run("warm", info())).toBe("warm");
  });
});

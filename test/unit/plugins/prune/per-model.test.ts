import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentMessageLike, definePlugin, definePreset, type PipelineEvent, type UiBridge } from "pi-governor";
import { createGovernor, formatProblems, loadConfigLayers, resolveConfig } from "pi-governor/host";
import { memorySessionStore } from "../../../../core/services.ts";
import { perModelEntrySchema, pruneDefaults, type PruneOptions } from "../../../../plugins/prune/config.ts";
import { prune } from "../../../../plugins/prune/index.ts";
import { settingsForModel } from "../../../../plugins/prune/per-model.ts";
import { STEP_KIND } from "../../../../plugins/prune/records.ts";

const FAUX = { provider: "faux", id: "faux-1" };
const OTHER = { provider: "anthropic", id: "claude-sonnet-4-5" };

function withPerModel(perModel: PruneOptions["perModel"], top: Partial<PruneOptions> = {}): PruneOptions {
  return { ...pruneDefaults, ...top, perModel };
}

async function governor(config: Record<string, unknown>) {
  const events: PipelineEvent[] = [];
  const recorder = definePlugin({
    name: "test:events",
    configKey: "testEvents",
    description: "records pipeline events",
    schema: z.object({}),
    defaults: {},
    apply: (pipeline) => void pipeline.hooks.event.tap({ name: "test:events" }, (e) => void events.push(e)),
  });
  const preset = definePreset({ name: "t", description: "", plugins: () => [prune(), recorder()] });
  const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [{ kind: "project", source: "test", data: { prune: config } }] });
  const store = memorySessionStore();
  const notes: string[] = [];
  const ui: UiBridge = { hasUI: true, notify: (m) => void notes.push(m), setStatus: () => {}, confirm: async () => false };
  g.attachSession("s1", ui, store);
  return { g, store, notes, ui, events };
}

function turn(t: number, chars = 3000): AgentMessageLike[] {
  return [
    { role: "user", content: [{ type: "text", text: `q${t}` }], timestamp: t * 10 },
    { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "grep", arguments: { pattern: `p${t}` } }], timestamp: t * 10 + 1 },
    { role: "toolResult", toolCallId: `c${t}`, toolName: "grep", content: [{ type: "text", text: "y".repeat(chars) }], isError: false, timestamp: t * 10 + 2 },
    { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: t * 10 + 3 },
  ];
}

const turns = (n: number, chars?: number) => Array.from({ length: n }, (_, i) => turn(i + 1, chars)).flat();
const pruned = (messages: AgentMessageLike[]) => messages.filter((m) => m.role === "toolResult" && JSON.stringify(m.content).includes("(Pruned)")).length;
/** Steps on every call, no adaptive mode: the thresholds alone decide. */
const EAGER = { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false };

describe("perModel key matching", () => {
  it("takes each setting from the most specific key: exact, then provider/*, then *", () => {
    const options = withPerModel({
      "*": { keepRecentTurns: 5, maxToolChars: 100, minStepTokens: 10 },
      "faux/*": { keepRecentTurns: 4, maxToolChars: 200 },
      "faux/faux-1": { keepRecentTurns: 3 },
    });
    const exact = settingsForModel(options, FAUX);
    expect(exact.matched).toEqual(["faux/faux-1", "faux/*", "*"]);
    expect(exact.options).toMatchObject({ keepRecentTurns: 3, maxToolChars: 200, minStepTokens: 10 });
    const sibling = settingsForModel(options, { provider: "faux", id: "faux-2" });
    expect(sibling.matched).toEqual(["faux/*", "*"]);
    expect(sibling.options).toMatchObject({ keepRecentTurns: 4, maxToolChars: 200, minStepTokens: 10 });
    const other = settingsForModel(options, OTHER);
    expect(other.matched).toEqual(["*"]);
    expect(other.options).toMatchObject({ keepRecentTurns: 5, maxToolChars: 100 });
    // No model reported: only "*" can apply.
    expect(settingsForModel(options, undefined).options.keepRecentTurns).toBe(5);
    // Nothing matches: the top-level options, unchanged.
    const none = settingsForModel(withPerModel({ "faux/*": { keepRecentTurns: 9 } }), OTHER);
    expect(none).toMatchObject({ matched: [], enabled: true, signature: "", options: { keepRecentTurns: pruneDefaults.keepRecentTurns } });
  });

  it("enabled: false switches a provider off, and a more specific key can switch one model back on", () => {
    const options = withPerModel({ "faux/*": { enabled: false }, "faux/faux-1": { enabled: true } });
    expect(settingsForModel(options, { provider: "faux", id: "faux-2" }).enabled).toBe(false);
    expect(settingsForModel(options, FAUX).enabled).toBe(true);
    expect(settingsForModel(options, OTHER).enabled).toBe(true);
  });

  it("model ids with a slash match their exact key; the provider is the part before the first slash", () => {
    const options = withPerModel({ "openrouter/anthropic/claude-sonnet-4": { maxToolChars: 50 }, "anthropic/*": { maxToolChars: 60 } });
    expect(settingsForModel(options, { provider: "openrouter", id: "anthropic/claude-sonnet-4" }).options.maxToolChars).toBe(50);
    expect(settingsForModel(options, { provider: "anthropic", id: "claude-sonnet-4" }).options.maxToolChars).toBe(60);
  });

  it("models with the same effective overrides share a signature; different ones do not", () => {
    const options = withPerModel({ "faux/*": { keepRecentTurns: 1 }, "faux/faux-1": { keepRecentTurns: 1 }, "anthropic/*": { keepRecentTurns: 3 } });
    expect(settingsForModel(options, FAUX).signature).toBe(settingsForModel(options, { provider: "faux", id: "x" }).signature);
    expect(settingsForModel(options, FAUX).signature).not.toBe(settingsForModel(options, OTHER).signature);
  });
});

describe("perModel config", () => {
  it("uses the top-level bounds for each override (derived schema, no second copy)", () => {
    expect(perModelEntrySchema.safeParse({ keepRecentTurns: 0 }).success).toBe(false);
    expect(perModelEntrySchema.safeParse({ keepRecentTurns: 101 }).success).toBe(false);
    expect(perModelEntrySchema.safeParse({ adaptiveEnterPercent: 1001 }).success).toBe(false);
    expect(perModelEntrySchema.safeParse({ perTool: {} }).success).toBe(false);
    expect(perModelEntrySchema.safeParse({ enabled: false, keepRecentTurns: 1, staleReads: false, contextWindow: 1_000_000 }).success).toBe(true);
  });

  describe("from a project file", () => {
    let root: string;
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it("reports a bad value or key with the file and key path, and keeps the rest of the entry and the other entries", () => {
      root = mkdtempSync(join(tmpdir(), "pigov-permodel-"));
      mkdirSync(join(root, "agent"));
      mkdirSync(join(root, "repo", ".pi"), { recursive: true });
      const file = join(root, "repo", ".pi", "pi-governor.json");
      writeFileSync(
        file,
        JSON.stringify({
          prune: {
            perModel: {
              "faux/faux-1": { keepRecentTurns: 0, maxToolChars: 500 },
              "faux/*": { keepRecentTurn: 3, enabled: false },
              "no-slash": { enabled: false },
              "anthropic/*": { dedup: false },
            },
          },
        }),
      );
      const { layers, problems } = loadConfigLayers({ cwd: join(root, "repo"), agentDir: join(root, "agent"), env: {} });
      expect(problems).toEqual([]);
      const r = resolveConfig([prune()], layers);
      const lines = formatProblems(r.problems);
      expect(lines, lines.join("\n")).toHaveLength(3);
      expect(lines.find((l) => l.includes("keepRecentTurns"))).toBe(`${file}: prune.perModel.faux/faux-1.keepRecentTurns: 0 is too small; use at least 1`);
      expect(lines).toContain(`${file}: prune.perModel.faux/*.keepRecentTurn: unknown key; check the spelling (see docs/config.md)`);
      expect(lines).toContain(
        `${file}: prune.perModel.no-slash: "no-slash" is not allowed as a key; use a model key: "provider/model-id", "provider/*" or "*"`,
      );
      expect(r.values.get("prune")!.perModel).toEqual({ "faux/faux-1": { maxToolChars: 500 }, "faux/*": { enabled: false }, "anthropic/*": { dedup: false } });
    });
  });
});

describe("prune plugin with perModel", () => {
  it("leaves the context untouched for a model with pruning off, and says so in its event", async () => {
    const { g, events } = await governor({ ...EAGER, perModel: { "faux/faux-1": { enabled: false } } });
    const messages = turns(6);
    const off = await g.pipeline.hooks.context.run(messages, { sessionId: "s1", model: FAUX });
    expect(off).toBe(messages);
    const event = events.filter((e) => e.type === "custom" && e.name === "context_pruned").at(-1);
    expect(event).toMatchObject({ data: { disabled: true, model: "faux/faux-1", perModel: ["faux/faux-1"] } });
    // Another model in the same config is pruned.
    const on = await g.pipeline.hooks.context.run(messages, { sessionId: "s1", model: OTHER });
    expect(pruned(on)).toBe(4);
  });

  it("prunes with each model's own thresholds", async () => {
    const { g } = await governor({
      ...EAGER,
      keepRecentTurns: 2,
      perModel: { "faux/*": { keepRecentTurns: 4 }, "anthropic/claude-sonnet-4-5": { maxToolChars: 5000 } },
    });
    const messages = turns(6);
    // grep is not in pruneTools: only size decides.
    expect(pruned(await g.pipeline.hooks.context.run(messages, { sessionId: "a", model: FAUX }))).toBe(2);
    expect(pruned(await g.pipeline.hooks.context.run(messages, { sessionId: "b", model: OTHER }))).toBe(0);
    expect(pruned(await g.pipeline.hooks.context.run(messages, { sessionId: "c", model: { provider: "openai", id: "gpt-5" } }))).toBe(4);
  });

  it("switching models mid-session: off, then on with the session's boundary, then other thresholds", async () => {
    const { g, store, notes, ui } = await governor({
      ...EAGER,
      keepRecentTurns: 2,
      perModel: { "faux/faux-off": { enabled: false }, "faux/faux-wide": { keepRecentTurns: 4 } },
    });
    const first = await g.pipeline.hooks.context.run(turns(6), { sessionId: "s1", model: FAUX });
    expect(pruned(first)).toBe(4);
    expect(store.entries(STEP_KIND)).toHaveLength(1);

    // The same session on a model with pruning off: the full history goes out.
    const full = turns(7);
    expect(await g.pipeline.hooks.context.run(full, { sessionId: "s1", model: { provider: "faux", id: "faux-off" } })).toBe(full);
    await g.pipeline.commands.get("governor pruning")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toContain("Pruning: off for model faux/faux-off");
    expect(notes.at(-1)).toContain("per-model settings (faux/faux-off): enabled=false");

    // A model with a wider window of kept turns: a new pruner, but the session's boundary (turn 5)
    // never moves back, so the 4 results before it stay pruned.
    const wide = await g.pipeline.hooks.context.run(turns(8), { sessionId: "s1", model: { provider: "faux", id: "faux-wide" } });
    expect(pruned(wide)).toBe(4);
    await g.pipeline.commands.get("governor pruning")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toContain("Pruning: on for model faux/faux-wide");
    expect(notes.at(-1)).toContain("keep the last 4 turn(s)");
    const widePlus = await g.pipeline.hooks.context.run(turns(10), { sessionId: "s1", model: { provider: "faux", id: "faux-wide" } });
    expect(pruned(widePlus)).toBe(6);
    const steps = store.entries(STEP_KIND).length;
    expect(steps).toBe(2);

    // Back to the first model: its kept pruner has not seen the wide model's step, so it is rebuilt
    // from the session's records and starts from the boundary the other model moved.
    const back = await g.pipeline.hooks.context.run(turns(10), { sessionId: "s1", model: FAUX });
    expect(pruned(back)).toBe(8);
    expect(back.slice(0, 24)).toEqual(widePlus.slice(0, 24));

    // A pin made under one model holds under the other: the kept wide pruner is rebuilt with it.
    const upTo9 = turns(10).slice(0, 35); // ends after turn 9's result
    await g.pipeline.hooks.context.run(upTo9, { sessionId: "s1", model: FAUX });
    await g.pipeline.commands.get("governor pin")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toContain("Pinned the grep result (c9)");
    const pinnedWide = await g.pipeline.hooks.context.run(turns(14), { sessionId: "s1", model: { provider: "faux", id: "faux-wide" } });
    expect(JSON.stringify(pinnedWide[34])).toContain("[pinned by the user");
    expect(pruned(pinnedWide)).toBe(9); // turns 1-10 before the boundary, c9 pinned
  });
});

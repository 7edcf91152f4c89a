import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset, type UiBridge } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { memorySessionStore } from "../../../../core/services.ts";
import { kotaPrune as prune } from "../../../../presets/kota/prune-policy.ts";
import { PIN_MARKER } from "../../../../plugins/prune/pin-marker.ts";
import { lastMeaningBearing } from "../../../../plugins/prune/pins.ts";
import { markPruned } from "../../../../plugins/prune/pruned-mark.ts";
import { PIN_KIND } from "../../../../plugins/prune/records.ts";

async function governor(config: Record<string, unknown> = {}) {
  const preset = definePreset({ name: "t", description: "", commandRoot: "kota", plugins: () => [prune()] });
  const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [{ kind: "project", source: "test", data: { prune: config } }] });
  const store = memorySessionStore();
  const notes: string[] = [];
  const ui: UiBridge = { hasUI: true, notify: (m) => void notes.push(m), setStatus: () => {}, confirm: async () => false };
  g.attachSession("s1", ui, store);
  return { g, store, notes, ui };
}

function turn(t: number, tool = "read", text = "y".repeat(3000)): AgentMessageLike[] {
  return [
    { role: "user", content: [{ type: "text", text: `q${t}` }], timestamp: t * 10 },
    { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: tool, arguments: { path: `f${t}` } }], timestamp: t * 10 + 1 },
    { role: "toolResult", toolCallId: `c${t}`, toolName: tool, content: [{ type: "text", text }], isError: false, timestamp: t * 10 + 2 },
    { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: t * 10 + 3 },
  ];
}

describe("prune plugin", () => {
  it("accepts the documented config shape and rejects unknown keys", async () => {
    const { g } = await governor({ enabled: true, keepRecentTurns: 2, maxToolChars: 1200, adaptive: true, pinImpactSummaries: true });
    expect(g.problems()).toEqual([]);
    const bad = await governor({ keepRecentTurn: 2 });
    expect(bad.g.problems().join("\n")).toContain("prune.keepRecentTurn");
  });

  it("taps context at CONTEXT_STAGE.PRUNE and toolResult at RESULT_STAGE.PIN, and mounts pin and pruning under the command root", async () => {
    const { g } = await governor();
    const taps = g.pipeline.describe();
    // Folding is the fold plugin's (test/unit/plugins/fold/index.test.ts): prune alone taps the
    // restore of its own context edits, its input, its stage and its output.
    expect(taps.context).toEqual([
      { name: "governor:prune", stage: -100 },
      { name: "governor:prune", stage: 399 },
      { name: "governor:prune", stage: 400 },
      { name: "governor:prune", stage: 401 },
    ]);
    expect(taps.contextEdits).toEqual([{ name: "governor:prune", stage: 400 }]);
    expect(taps.toolResult).toEqual([{ name: "governor:prune", stage: 300 }]);
    // contextEdits "off": nothing at the boundary; only the restoring tap (for edits written before).
    const off = (await governor({ contextEdits: "off" })).g.pipeline.describe();
    expect(off.context!.map((t) => t.stage)).toEqual([-100, 400]);
    expect(off.contextEdits).toEqual([]);
    expect([...g.pipeline.commands.keys()].sort()).toEqual(["kota pin", "kota pruning"]);
  });

  it("pins kota_impact results on arrival with a visible marker, and leaves other tools alone", async () => {
    const { g } = await governor();
    const value = {
      toolName: "kota_impact",
      toolCallId: "i1",
      input: {},
      content: [{ type: "text" as const, text: "Risk: high" }],
      details: {},
      isError: false,
    };
    const out = await g.pipeline.hooks.toolResult.run(value, { tool: undefined, sessionId: "s1" });
    expect(out.details?.pinned).toBe(true);
    expect(out.content[0]).toEqual({ type: "text", text: PIN_MARKER });
    const other = { ...value, toolName: "read" };
    expect(await g.pipeline.hooks.toolResult.run(other, { tool: undefined, sessionId: "s1" })).toBe(other);
    const off = await governor({ pinImpactSummaries: false, pinTools: ["kota_deps"] });
    expect((await off.g.pipeline.hooks.toolResult.run(value, { tool: undefined, sessionId: "s1" })).details?.pinned).toBeUndefined();
    expect((await off.g.pipeline.hooks.toolResult.run({ ...value, toolName: "kota_deps" }, { tool: undefined, sessionId: "s1" })).details?.pinned).toBe(true);
  });

  it("prunes through the pipeline, request-only: the input list is not modified", async () => {
    const { g } = await governor({ cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false });
    const messages = [1, 2, 3, 4].flatMap((t) => turn(t));
    const copy = structuredClone(messages);
    const out = await g.pipeline.hooks.context.run(messages, { sessionId: "s1" });
    expect(out).not.toBe(messages);
    expect(messages).toEqual(copy);
    expect(JSON.stringify(out[2])).toContain('(Pruned) read(path=\\"f1\\")');
  });

  it("/kota pin pins the last meaning-bearing result, persists it, and pruning keeps it", async () => {
    const { g, store, notes, ui } = await governor({ cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false });
    const messages = [...turn(1), ...turn(2, "blob_read"), ...turn(3), ...turn(4)].slice(0, 11); // ends inside turn 3, after c3's result
    await g.pipeline.hooks.context.run(messages, { sessionId: "s1" });
    await g.pipeline.commands.get("kota pin")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toContain("Pinned the read result (c3)");
    expect(store.entries(PIN_KIND)).toEqual([{ toolCallId: "c3", toolName: "read" }]);
    const later = [1, 2, 3, 4, 5].flatMap((t) => turn(t, t === 2 ? "blob_read" : "read"));
    const out = await g.pipeline.hooks.context.run(later, { sessionId: "s1" });
    expect(JSON.stringify(out[10])).toContain("[pinned by the user");
    expect(JSON.stringify(out[2])).toContain("(Pruned)");
  });

  it("/kota pin says so when there is nothing to pin", async () => {
    const { g, notes, ui } = await governor();
    await g.pipeline.commands.get("kota pin")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toMatch(/Nothing to pin/);
  });

  it("/kota pruning shows the settings and the last steps with bytes saved", async () => {
    const { g, notes, ui } = await governor({ cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false });
    await g.pipeline.commands.get("kota pruning")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    expect(notes.at(-1)).toContain("No model call seen");
    await g.pipeline.hooks.context.run(
      [1, 2, 3, 4].flatMap((t) => turn(t)),
      { sessionId: "s1" },
    );
    await g.pipeline.commands.get("kota pruning")!.command.handler("", { ui, cwd: "/tmp", sessionId: "s1" });
    const text = notes.at(-1)!;
    expect(text).toContain("keep the last 2 turn(s)");
    expect(text).toContain("Recent boundary steps");
    expect(text).toMatch(/2 result\(s\), [\d,]+ chars saved/);
    expect(text).toContain('(Pruned) read(path="f1")');
  });

  it("the last meaning-bearing result skips errors, skip-listed tools and placeholders", () => {
    const m = (id: string, toolName: string, text: string, isError = false): AgentMessageLike => ({
      role: "toolResult",
      toolCallId: id,
      toolName,
      content: [{ type: "text", text }],
      isError,
    });
    const list = [m("a", "kota_deps", "deps"), markPruned(m("b", "read", "(Pruned) read()")), m("c", "bash", "boom", true), m("d", "blob_read", "bytes")];
    expect(lastMeaningBearing(list, new Set(["blob_read"]))?.toolCallId).toBe("a");
    // Text alone does not make a placeholder: a tool may print the prefix.
    expect(lastMeaningBearing([m("a", "kota_deps", "deps"), m("b", "read", "(Pruned) read()")], new Set())?.toolCallId).toBe("b");
    expect(lastMeaningBearing([], new Set())).toBeUndefined();
  });
});

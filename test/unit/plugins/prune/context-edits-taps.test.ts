import { describe, expect, it } from "vitest";
import { type AgentMessageLike, type BoundaryDraft, definePreset, type SessionMessageEntry, type SessionRecord, type UiBridge } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { memorySessionStore } from "../../../../core/services.ts";
import { sessionMessageEntries, sessionRecords } from "../../../../host/pi/session-entries.ts";
import { prune } from "../../../../plugins/prune/index.ts";
import { EDITS_KIND } from "../../../../plugins/prune/context-edits.ts";

const EVERY_TURN = { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false, keepRecentTurns: 1 };

async function governor(config: Record<string, unknown> = {}) {
  const preset = definePreset({ name: "t", description: "", plugins: () => [prune()] });
  const g = await createGovernor({
    preset,
    cwd: "/tmp",
    agentDir: "/tmp",
    env: {},
    layers: [{ kind: "project", source: "test", data: { prune: { ...EVERY_TURN, ...config } } }],
  });
  const store = memorySessionStore();
  const ui: UiBridge = { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false };
  g.attachSession("s1", ui, store);
  return { g, store };
}

function turn(t: number): AgentMessageLike[] {
  return [
    { role: "user", content: [{ type: "text", text: `q${t}` }], timestamp: t * 10 },
    { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}.ts` } }], timestamp: t * 10 + 1 },
    {
      role: "toolResult",
      toolCallId: `c${t}`,
      toolName: "read",
      content: [{ type: "text", text: `// f${t}\n${"const y = 1;\n".repeat(400)}` }],
      isError: false,
      timestamp: t * 10 + 2,
    },
    { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: t * 10 + 3 },
  ];
}

type BranchEntry = { type: string; id: string; message?: unknown; targetId?: string; replacement?: unknown; customType?: string; data?: unknown };

/** A stand-in for pi's session: its branch (messages e0, e1, ...; edits and records appended in order with their own ids), read as pi's adapter reads it. */
class Session {
  readonly raw: AgentMessageLike[] = [];
  readonly branch: BranchEntry[] = [];
  private appended = 0;
  private readonly reader = { getBranch: () => this.branch };
  push(...messages: AgentMessageLike[]): void {
    for (const m of messages) this.branch.push({ type: "message", id: `e${this.raw.push(m) - 1}`, message: m });
  }
  entries = (): SessionMessageEntry[] => sessionMessageEntries(this.reader);
  records = (kind: string): SessionRecord[] => sessionRecords(this.reader, kind);
  /** The latest edit of each target. */
  get edits(): Map<string, { content: unknown } | null> {
    const out = new Map<string, { content: unknown } | null>();
    for (const e of this.branch) if (e.type === "context_edit") out.set(e.targetId!, e.replacement as { content: unknown } | null);
    return out;
  }
  /** What pi's projection hands the context event: the edits applied, as a fresh copy. */
  projected = (): AgentMessageLike[] => {
    const edits = this.edits;
    return structuredClone(this.raw.map((m, i) => (edits.get(`e${i}`) ? ({ ...m, content: edits.get(`e${i}`)!.content } as AgentMessageLike) : m)));
  };
  /** pi appends a boundary's drafts in order, each an entry with an id. */
  commit(drafts: BoundaryDraft[]): void {
    for (const d of drafts) this.branch.push({ ...d, id: `x${this.appended++}` });
  }
}

describe("pruning as context edits through the pipeline", () => {
  it("sends what the context path sends at every request, and the boundary writes only new edits plus one record", async () => {
    const pure = await governor({ contextEdits: "off" });
    const edits = await governor();
    const session = new Session();
    let written = 0;
    for (let t = 1; t <= 6; t++) {
      session.push(...turn(t));
      const expected = await pure.g.pipeline.hooks.context.run(structuredClone(session.raw), { sessionId: "s1" });
      const sent = await edits.g.pipeline.hooks.context.run(session.projected(), {
        sessionId: "s1",
        sessionEntries: session.entries,
        sessionRecords: session.records,
      });
      expect(sent, `request ${t}`).toEqual(expected);
      const drafts = await edits.g.pipeline.hooks.contextEdits.run([], { sessionId: "s1", turnIndex: 0, entries: session.entries, records: session.records });
      const contextEdits = drafts.filter((d) => d.type === "context_edit");
      // Never an edit already in the session.
      for (const d of contextEdits) expect(session.edits.get(d.targetId)).toBeUndefined();
      if (contextEdits.length) expect(drafts.at(-1)).toMatchObject({ type: "custom", customType: EDITS_KIND });
      session.commit(drafts);
      written += contextEdits.length;
    }
    expect(written).toBe(5); // the reads of turns 1-5 (turn 6, the last, is kept)
    // Every edit replaces a tool result with its placeholder.
    for (const [id, e] of session.edits) expect(JSON.stringify(e)).toContain("(Pruned) read"), expect(id).toMatch(/^e\d+$/);
    expect(edits.store.entries(EDITS_KIND)).toEqual([]); // the record travels with the boundary entries, not through the store
  });

  it("a new process (resume) restores from the session's records on the branch: the same messages again", async () => {
    const first = await governor();
    const session = new Session();
    for (let t = 1; t <= 4; t++) {
      session.push(...turn(t));
      await first.g.pipeline.hooks.context.run(session.projected(), { sessionId: "s1", sessionEntries: session.entries, sessionRecords: session.records });
      const drafts = await first.g.pipeline.hooks.contextEdits.run([], { sessionId: "s1", turnIndex: 0, entries: session.entries, records: session.records });
      session.commit(drafts);
      // The store of a resumed process reads the records pi persisted with the edits.
      for (const d of drafts) if (d.type === "custom") first.store.append(d.customType, d.data);
    }
    expect(session.edits.size).toBeGreaterThan(0);
    // Which edits are pruning's comes from the branch (its records right after its edits), not from memory.
    const resumed = await governor();
    // The boundary steps the pruner persisted travel too.
    const pure = await governor({ contextEdits: "off" });
    for (const kind of ["governor:prune-step", "governor:prune-pin"])
      for (const r of first.store.entries(kind)) resumed.store.append(kind, r), pure.store.append(kind, r);
    session.push(...turn(5));
    const expected = await pure.g.pipeline.hooks.context.run(structuredClone(session.raw), { sessionId: "s1" });
    const sent = await resumed.g.pipeline.hooks.context.run(session.projected(), {
      sessionId: "s1",
      sessionEntries: session.entries,
      sessionRecords: session.records,
    });
    expect(sent).toEqual(expected);
    // Turned "off" later: nothing more is written, and the edits pi still applies are read raw by the pruner.
    const turnedOff = await governor({ contextEdits: "off" });
    for (const kind of [EDITS_KIND, "governor:prune-step", "governor:prune-pin"]) for (const r of first.store.entries(kind)) turnedOff.store.append(kind, r);
    expect(
      await turnedOff.g.pipeline.hooks.context.run(session.projected(), { sessionId: "s1", sessionEntries: session.entries, sessionRecords: session.records }),
    ).toEqual(expected);
    expect(
      await turnedOff.g.pipeline.hooks.contextEdits.run([], { sessionId: "s1", turnIndex: 0, entries: session.entries, records: session.records }),
    ).toEqual([]);
  });

  it("/governor status names the path", async () => {
    const lines = (g: Awaited<ReturnType<typeof governor>>["g"]) =>
      g.pipeline.statusSections
        .find((s) => s.title === "Pruning path")!
        .lines()
        .join("\n");
    const off = await governor({ contextEdits: "off" });
    expect(lines(off.g)).toMatch(/context event only/);
    const auto = await governor();
    expect(lines(auto.g)).toMatch(/no pi turn boundary with session entries seen yet/);
    await auto.g.pipeline.hooks.contextEdits.run([], { sessionId: "s1", turnIndex: 0, entries: () => [], records: () => [] });
    expect(lines(auto.g)).toMatch(/context edits: pruned results become pi context_edit entries/);
  });
});

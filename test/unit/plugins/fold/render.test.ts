import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { FOLD_MESSAGE_TYPE, UNFOLD_KIND } from "../../../../plugins/fold/index.ts";
import { PIN_KIND } from "../../../../plugins/prune/records.ts";
import { harness, pairsValid, textOf, turn, turns, user } from "../../../helpers/prune-fold.ts";

const SUMMARY = "Turns 2-4 read f2-f4: config loader, its schema and tests; nothing to change.";

/** A session that folded c2..c4 in turn 7, and the history after the fold call. */
async function folded(options: Record<string, unknown> = {}) {
  const h = await harness(options);
  const before = [...turns(6), user(7)];
  await h.context(before);
  const fold = await h.fold("f7", { from: "c2", to: "c4", summary: SUMMARY }, 7);
  expect(fold.ok).toBe(true);
  return { h, history: [...before, ...fold.messages] };
}

/** What the prune plugin alone sends for `history`. */
async function pruneAlone(history: AgentMessageLike[]): Promise<AgentMessageLike[]> {
  return (await harness({}, { fold: { enabled: false } })).context(history);
}

describe("folding: what the model is sent", () => {
  it("replaces the folded turns by ONE custom message with the summary, from the first request after the fold", async () => {
    const { h, history } = await folded();
    const out = await h.context(history);
    expect(out).toHaveLength(history.length - 12 + 1);
    const message = out[4]! as { role: string; customType?: string; display?: boolean; timestamp?: number };
    expect(message).toMatchObject({ role: "custom", customType: FOLD_MESSAGE_TYPE, display: false, timestamp: 200 });
    const text = textOf(out[4]!);
    expect(text).toMatch(/^\[Folded turns 2-4 by context_fold f7: 12 messages, [\d,]+ chars\]\n/);
    expect(text).toContain(`\n${SUMMARY}\n`);
    expect(text).toContain("the user can restore them with /governor unfold f7.");
    // Nothing of turns 2-4 is left; turn 1 and turns 5-7 are.
    const ids = out.flatMap((m) => (m.role === "toolResult" ? [(m as { toolCallId: string }).toolCallId] : []));
    expect(ids).toEqual(["c1", "c5", "c6", "f7"]);
    expect(pairsValid(out)).toBe(true);
    // Everything but the folded range is what pruning alone sends.
    const alone = await pruneAlone(history);
    expect(JSON.stringify([...out.slice(0, 4), ...out.slice(5)])).toBe(JSON.stringify([...alone.slice(0, 4), ...alone.slice(16)]));
  });

  it("is deterministic: the same bytes on every request, the same message object, and the same bytes replayed by a fresh governor", async () => {
    const { h, history } = await folded();
    const a = await h.context(history);
    const b = await h.context(structuredClone(history));
    expect(b[4]).toBe(a[4]);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const replay = await harness({}, { store: h.store });
    expect(JSON.stringify(await replay.context(structuredClone(history)))).toBe(JSON.stringify(a));
  });

  it("keeps the sent prefix stable after the fold: later requests only append", async () => {
    const { h, history } = await folded({ keepRecentTurns: 10 });
    const first = await h.context(history);
    const later = [...history, { role: "assistant", content: [{ type: "text", text: "folded." }], timestamp: 790 } as AgentMessageLike, ...turn(8)];
    const next = await h.context(later);
    expect(JSON.stringify(next.slice(0, first.length))).toBe(JSON.stringify(first));
  });

  it("ignores a recorded fold whose range is not valid in this context, and logs it once", async () => {
    const h = await harness();
    const history: AgentMessageLike[] = [
      ...turns(4),
      user(5),
      { role: "assistant", content: [{ type: "toolCall", id: "f5", name: "context_fold", arguments: { from: "gone", to: "c2", summary: SUMMARY } }] },
      { role: "toolResult", toolCallId: "f5", toolName: "context_fold", content: [{ type: "text", text: "Folded" }], isError: false },
    ];
    const out = await h.context(history);
    await h.context(history);
    expect(JSON.stringify(out)).toBe(JSON.stringify(await pruneAlone(history)));
    const warnings = h.logs.filter((l) => l.message.startsWith("context_fold ignored"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.data).toMatchObject({ foldId: "f5" });
  });

  it("never drops a result the user pinned after the fold: the fold is no longer applied", async () => {
    const { h, history } = await folded();
    h.store.append(PIN_KIND, { toolCallId: "c3", toolName: "read" });
    const out = await h.context(history);
    expect(out.some((m) => (m as { customType?: string }).customType === FOLD_MESSAGE_TYPE)).toBe(false);
    expect(out.some((m) => m.role === "toolResult" && (m as { toolCallId: string }).toolCallId === "c3")).toBe(true);
  });
});

describe("/governor unfold", () => {
  it("lists the active folds, says so for an unknown id, and restores a fold: the next context is what pruning alone sends", async () => {
    const { h, history } = await folded();
    await h.context(history);
    expect(await h.command("governor unfold", "")).toMatch(/^Active folds:\n {2}f7: turns 2-4, 12 messages, [\d,]+ chars: Turns 2-4 read f2-f4/);
    const unknown = await h.command("governor unfold", "nope");
    expect(unknown).toContain('No active fold "nope" in this session. Active folds:');
    expect(h.notes.at(-1)!.level).toBe("warning");
    expect(h.store.entries(UNFOLD_KIND)).toEqual([]);

    expect(await h.command("governor unfold", "f7")).toMatch(/^Restored f7: turns 2-4, 12 messages.*sent in full again from the next request\.$/s);
    expect(h.store.entries(UNFOLD_KIND)).toEqual([{ id: "f7" }]);
    const out = await h.context(history);
    expect(JSON.stringify(out)).toBe(JSON.stringify(await pruneAlone(history)));
    expect(await h.command("governor unfold", "")).toBe("No active folds in this session.");
    // The unfold is a session record: a fresh governor on the same session does not fold either.
    const replay = await harness({}, { store: h.store });
    expect(JSON.stringify(await replay.context(history))).toBe(JSON.stringify(out));
  });

  it("hangs under the preset's command root, and the fold message and tool result name it", async () => {
    const h = await harness({}, { commandRoot: "kota" });
    const history = [...turns(4), user(5)];
    await h.context(history);
    const fold = await h.fold("f5", { from: "c1", to: "c2", summary: SUMMARY });
    expect(fold.text).toContain("/kota unfold f5");
    const out = await h.context([...history, ...fold.messages]);
    expect(textOf(out[0]!)).toContain("the user can restore them with /kota unfold f5.");
    expect(await h.command("kota unfold", "f5")).toMatch(/^Restored f5: turns 1-2/);
  });

  it("answers --help and a stray argument with the usage", async () => {
    const h = await harness();
    expect(await h.command("governor unfold", "--help")).toContain("/governor unfold [id]");
    expect(await h.command("governor unfold", "a b")).toContain("unexpected argument");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, messageMeta } from "pi-governor";
import { FOLD_MESSAGE_TYPE, FOLD_TOOL, UNFOLD_KIND } from "../../plugins/fold/index.ts";
import { callPath, protectedPathMatcher } from "../../lib/context/index.ts";
import { PIN_KIND } from "../../plugins/prune/records.ts";
import { harness, pairsValid } from "../helpers/prune-fold.ts";
import { buildHistory, turnsArb } from "../helpers/prune-sessions.ts";

const PROTECTED = ["src/m3.ts"];
const SUMMARY = "The folded turns looked at modules and found nothing to change.";

/** Recorded folds: each a later turn whose context_fold call names two random call ids; some ranges are invalid, as a model's may be. */
const foldsArb = fc.array(fc.record({ from: fc.nat(), to: fc.nat(), ok: fc.integer({ min: 0, max: 4 }).map((n) => n > 0) }), { maxLength: 4 });

function callIds(history: readonly AgentMessageLike[]): string[] {
  return history.flatMap((m) =>
    m.role === "assistant" ? (m.content as Array<{ type: string; id?: string }>).filter((b) => b.type === "toolCall").map((b) => b.id!) : [],
  );
}

/** The history, then one turn per fold spec (call + result), then the current turn's first request. */
function session(
  turns: Parameters<typeof buildHistory>[0],
  folds: Array<{ from: number; to: number; ok: boolean }>,
): { history: AgentMessageLike[]; foldIds: string[] } {
  const history = buildHistory(turns);
  const ids = callIds(history);
  let t = 1_800_000_000_000;
  const foldIds: string[] = [];
  folds.forEach((f, k) => {
    const id = `fold_${k}`;
    foldIds.push(id);
    const args = ids.length ? { from: ids[f.from % ids.length]!, to: ids[f.to % ids.length]!, summary: SUMMARY } : { from: "x", to: "y", summary: SUMMARY };
    history.push(
      { role: "user", content: [{ type: "text", text: `fold ${k}` }], timestamp: t++ },
      { role: "assistant", content: [{ type: "toolCall", id, name: FOLD_TOOL, arguments: args }], timestamp: t++ },
      { role: "toolResult", toolCallId: id, toolName: FOLD_TOOL, content: [{ type: "text", text: "Folded." }], isError: !f.ok, timestamp: t++ },
      { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: t++ },
    );
  });
  history.push({ role: "user", content: [{ type: "text", text: "next" }], timestamp: t++ });
  return { history, foldIds };
}

const settingsArb = fc.record({ keepRecentTurns: fc.integer({ min: 1, max: 3 }), userPin: fc.nat() });

/** Options shared by the folding and the prune-only runs; the nudge is off so the two differ only by folds. */
const options = (keepRecentTurns: number) => ({ keepRecentTurns, protectedFilePatterns: PROTECTED });
const NO_NUDGE = { nudgePercent: 1000 };

async function run(history: AgentMessageLike[], keepRecentTurns: number, userPin: string | undefined, fold = true) {
  const h = await harness(options(keepRecentTurns), { fold: { ...NO_NUDGE, enabled: fold } });
  if (userPin) h.store.append(PIN_KIND, { toolCallId: userPin, toolName: "read" });
  return { h, out: await h.context(structuredClone(history)) };
}

describe("folding (property)", () => {
  it("keeps every toolCall/toolResult pair valid, never drops a pinned or protected message, and is deterministic", async () => {
    const isProtected = protectedPathMatcher(PROTECTED);
    await fc.assert(
      fc.asyncProperty(turnsArb(8), foldsArb, settingsArb, async (turns, folds, s) => {
        const { history } = session(turns, folds);
        const ids = callIds(history);
        const userPin = ids.length ? ids[s.userPin % ids.length] : undefined;
        const { h, out } = await run(history, s.keepRecentTurns, userPin);
        const alone = (await run(history, s.keepRecentTurns, userPin, false)).out;
        expect(pairsValid(out)).toBe(true);

        // Every other message is there, in order: as prune alone sends it, or as the history has it (folded
        // messages leave pruning's sizes, so a step prune alone takes may wait; it never rewrites anything else).
        const sent = out.filter((m) => (m as { customType?: string }).customType !== FOLD_MESSAGE_TYPE).map((m) => JSON.stringify(m));
        const all = alone.map((m) => JSON.stringify(m));
        const original = history.map((m) => JSON.stringify(m));
        expect(all).toHaveLength(original.length);
        let j = 0;
        for (const m of sent) {
          while (j < all.length && all[j] !== m && original[j] !== m) j++;
          expect(j).toBeLessThan(all.length);
          j++;
        }
        // Pinned results and protected calls' results are never folded away.
        const protectedCalls = new Set(
          history.flatMap((m) =>
            m.role === "assistant"
              ? (m.content as Array<{ type: string; id?: string; arguments?: Record<string, unknown> }>)
                  .filter((b) => b.type === "toolCall" && isProtected(callPath(b.arguments) ?? "\0"))
                  .map((b) => b.id!)
              : [],
          ),
        );
        const kept = new Set(out.filter((m) => m.role === "toolResult").map((m) => String((m as { toolCallId: unknown }).toolCallId)));
        for (const m of history) {
          if (m.role !== "toolResult") continue;
          const id = String((m as { toolCallId: unknown }).toolCallId);
          if (messageMeta(m).pinned || id === userPin || protectedCalls.has(id)) expect(kept.has(id)).toBe(true);
        }
        // Deterministic: the same session again, and a fresh governor on the same records, send the same bytes.
        expect(JSON.stringify(await h.context(structuredClone(history)))).toBe(JSON.stringify(out));
        const again = await harness(options(s.keepRecentTurns), { store: h.store, fold: NO_NUDGE });
        expect(JSON.stringify(await again.context(structuredClone(history)))).toBe(JSON.stringify(out));
      }),
      { numRuns: 60 },
    );
  });

  it("unfolding every fold restores exactly the messages prune alone sends", async () => {
    await fc.assert(
      fc.asyncProperty(turnsArb(8), foldsArb, settingsArb, async (turns, folds, s) => {
        const { history, foldIds } = session(turns, folds);
        const { h } = await run(history, s.keepRecentTurns, undefined);
        for (const id of foldIds) h.store.append(UNFOLD_KIND, { id });
        const restored = await h.context(structuredClone(history));
        const alone = (await run(history, s.keepRecentTurns, undefined, false)).out;
        expect(JSON.stringify(restored)).toBe(JSON.stringify(alone));
      }),
      { numRuns: 40 },
    );
  });

  it("a valid fold of finished turns is applied: its turns are replaced by one message", async () => {
    await fc.assert(
      fc.asyncProperty(turnsArb(8), async (turns) => {
        const h = await harness({ keepRecentTurns: 1 }, { fold: NO_NUDGE });
        const history = [...buildHistory(turns), { role: "user", content: [{ type: "text", text: "now" }], timestamp: 1 } as AgentMessageLike];
        await h.context(history);
        const ids = callIds(history);
        if (!ids.length) return;
        // The first call's turn holds a pinned result: refused; otherwise folded.
        const at = history.findIndex((m) => m.role === "assistant" && JSON.stringify(m.content).includes(`"id":"${ids[0]}"`));
        const start = history.map((m) => m.role).lastIndexOf("user", at);
        const end = history.findIndex((m, i) => i > at && m.role === "user");
        const pinnedInFirst = history.slice(start, end).some((m) => messageMeta(m).pinned);
        const r = await h.fold("f_now", { from: ids[0]!, to: ids[0]!, summary: SUMMARY });
        const out = await h.context([...history, ...r.messages]);
        expect(r.ok).toBe(!pinnedInFirst);
        const folded = out.filter((m) => (m as { customType?: string }).customType === FOLD_MESSAGE_TYPE);
        expect(folded).toHaveLength(r.ok ? 1 : 0);
        if (r.ok) expect(out.some((m) => m.role === "toolResult" && (m as { toolCallId: string }).toolCallId === ids[0])).toBe(false);
        expect(pairsValid(out)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

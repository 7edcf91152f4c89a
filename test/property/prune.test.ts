import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessageLike, SessionStore } from "pi-governor";
import { memorySessionStore } from "../../core/services.ts";
import { pruneDefaults, type PruneOptions } from "../../plugins/prune/config.ts";
import { USER_PIN_MARKER } from "../../plugins/prune/pin-marker.ts";
import { isPlaceholder } from "../../plugins/prune/placeholder.ts";
import { SessionPruner } from "../../plugins/prune/pruner.ts";
import { PIN_KIND, STEP_KIND } from "../../plugins/prune/records.ts";
import { messagesChars } from "../../plugins/prune/size.ts";
import { protectedFrom, turnStarts } from "../../lib/context/index.ts";
import { buildHistory, requestPoints, turnsArb } from "../helpers/prune-sessions.ts";

/** Options that prune on the first call (no cache economics), so every property sees pruning. */
const eager: PruneOptions = { ...pruneDefaults, adaptive: false, cacheAware: false, minStepTokens: 0, minStepPercent: 0 };
const optionsArb = fc.record({
  keepRecentTurns: fc.integer({ min: 1, max: 4 }),
  maxToolChars: fc.constantFrom(0, 200, 1200, 5000),
});
const window = { tokens: null, contextWindow: 200_000, percent: null };

function prune(
  messages: AgentMessageLike[],
  options: PruneOptions,
  store: SessionStore = memorySessionStore(),
): { out: AgentMessageLike[]; pruner: SessionPruner } {
  const pruner = new SessionPruner(options, () => store);
  return { out: pruner.run(messages, window), pruner };
}

function textOf(m: AgentMessageLike): string {
  return Array.isArray(m.content)
    ? (m.content as Array<{ type: string; text?: string }>)
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("\n")
    : String(m.content ?? "");
}

describe("prune (property)", () => {
  it("keeps the last K turns byte-identical and never mutates its input", () => {
    fc.assert(
      fc.property(turnsArb(), optionsArb, (turns, o) => {
        const history = buildHistory(turns);
        const before = JSON.stringify(history);
        const { out } = prune(history, { ...eager, ...o });
        const from = protectedFrom(turnStarts(history), o.keepRecentTurns);
        expect(JSON.stringify(out.slice(from))).toBe(JSON.stringify(history.slice(from)));
        expect(JSON.stringify(history)).toBe(before);
      }),
    );
  });

  it("with adaptive mode on, still keeps the last adaptiveKeepRecentTurns turns byte-identical", () => {
    fc.assert(
      fc.property(turnsArb(), fc.integer({ min: 1, max: 3 }), (turns, keep) => {
        const history = buildHistory(turns);
        // A tiny window puts the pruner in adaptive mode at once.
        const { out } = prune(history, { ...eager, adaptive: true, contextWindow: 1000, adaptiveKeepRecentTurns: keep });
        // Adaptive mode never keeps more turns than normal mode does.
        const from = protectedFrom(turnStarts(history), Math.min(keep, eager.keepRecentTurns));
        expect(JSON.stringify(out.slice(from))).toBe(JSON.stringify(history.slice(from)));
      }),
    );
  });

  it("keeps message order and count, assistant messages as they were, and every tool call's result", () => {
    fc.assert(
      fc.property(turnsArb(), optionsArb, (turns, o) => {
        const history = buildHistory(turns);
        const { out } = prune(history, { ...eager, ...o });
        expect(out).toHaveLength(history.length);
        const resultIds = new Set<string>();
        out.forEach((m, i) => {
          const h = history[i]!;
          expect(m.role).toBe(h.role);
          if (h.role !== "toolResult") expect(m).toBe(h);
          else {
            expect(m.toolCallId).toBe(h.toolCallId);
            expect(m.toolName).toBe(h.toolName);
            expect(m.isError).toBe(h.isError);
            resultIds.add(String(m.toolCallId));
          }
        });
        for (const m of out) {
          if (m.role !== "assistant") continue;
          for (const b of m.content as Array<{ type: string; id?: string }>) if (b.type === "toolCall") expect(resultIds.has(b.id!)).toBe(true);
        }
      }),
    );
  });

  it("leaves pinned results untouched (details.pinned); user pins keep their content behind a visible marker", () => {
    fc.assert(
      fc.property(turnsArb(), fc.array(fc.nat(), { maxLength: 4 }), (turns, picks) => {
        const history = buildHistory(turns);
        const results = history.filter((m) => m.role === "toolResult");
        const store = memorySessionStore();
        const userPinned = new Set<string>();
        for (const p of picks) {
          if (!results.length) break;
          const r = results[p % results.length]!;
          userPinned.add(String(r.toolCallId));
          store.append(PIN_KIND, { toolCallId: r.toolCallId, toolName: r.toolName });
        }
        const { out } = prune(history, { ...eager, maxToolChars: 0 }, store);
        out.forEach((m, i) => {
          const h = history[i]!;
          if (h.role !== "toolResult") return;
          if ((h.details as { pinned?: boolean }).pinned) expect(m).toBe(h);
          else if (userPinned.has(String(h.toolCallId))) {
            const content = m.content as unknown[];
            if (m !== h) {
              expect((content[0] as { text: string }).text).toBe(USER_PIN_MARKER);
              expect(JSON.stringify(content.slice(1))).toBe(JSON.stringify(h.content));
            }
          }
        });
      }),
    );
  });

  it("is deterministic and idempotent", () => {
    fc.assert(
      fc.property(turnsArb(), optionsArb, (turns, o) => {
        const history = buildHistory(turns);
        const options = { ...eager, ...o };
        const once = prune(history, options).out;
        expect(JSON.stringify(prune(structuredClone(history), options).out)).toBe(JSON.stringify(once));
        expect(JSON.stringify(prune(once, options).out)).toBe(JSON.stringify(once));
      }),
    );
  });

  it("never makes the context larger", () => {
    fc.assert(
      fc.property(turnsArb(), optionsArb, fc.boolean(), (turns, o, adaptive) => {
        const history = buildHistory(turns);
        const { out } = prune(history, { ...eager, ...o, adaptive, contextWindow: adaptive ? 1000 : 200_000 });
        expect(messagesChars(out)).toBeLessThanOrEqual(messagesChars(history));
      }),
    );
  });

  it("names the tool and a way back in every placeholder: the blob when there is one, else the newer call, a fresh read or a re-run", () => {
    fc.assert(
      fc.property(turnsArb(), optionsArb, fc.boolean(), (turns, o, adaptive) => {
        const history = buildHistory(turns);
        const { out } = prune(history, { ...eager, ...o, adaptive, contextWindow: adaptive ? 1000 : 200_000 });
        out.forEach((m, i) => {
          if (m.role !== "toolResult" || !isPlaceholder(textOf(m))) return;
          const text = textOf(m);
          expect(text).toContain(`${String(m.toolName)}(`);
          const blobId = (history[i]!.details as { blobId?: string }).blobId;
          // A blob is named by the first 12 hex digits of its id (BlobStore.resolve finds it); an id
          // that is not 64 hex digits (as the generated sessions use) is named as it is.
          if (blobId) expect(text).toContain(`blob_read({"blobId":"${/^[0-9a-f]{64}$/.test(blobId) ? blobId.slice(0, 12) : blobId}"})`);
          // No blob: the newer call, a fresh read ("Re-read it", "read it again") or a re-run.
          else expect(text).toMatch(/re-run|re-read|repeated (later )?as (call )?\S+|read (it )?again/i);
        });
      }),
    );
  });

  it("between model calls of a growing session, the already-sent prefix changes only when the boundary steps, and only from original to placeholder", () => {
    fc.assert(
      fc.property(turnsArb(16), fc.boolean(), fc.integer({ min: 0, max: 3000 }), (turns, cacheAware, minStepTokens) => {
        const history = buildHistory(turns);
        const store = memorySessionStore();
        const pruner = new SessionPruner({ ...pruneDefaults, cacheAware, minStepTokens, adaptive: false, forceStepPercent: 1000 }, () => store);
        let previous: AgentMessageLike[] | undefined;
        let boundaryTurn = 0;
        for (const point of requestPoints(history)) {
          const sent = pruner.run(structuredClone(history.slice(0, point)), window);
          const report = pruner.lastReport!;
          expect(report.boundaryTurn).toBeGreaterThanOrEqual(boundaryTurn);
          boundaryTurn = report.boundaryTurn;
          if (previous) {
            for (let i = 0; i < previous.length; i++) {
              const a = JSON.stringify(previous[i]);
              const b = JSON.stringify(sent[i]);
              if (a === b) continue;
              expect(report.stepped).toBe(true);
              expect(a).toBe(JSON.stringify(history[i])); // it was sent as the original...
              expect(isPlaceholder(textOf(sent[i]!))).toBe(true); // ...and is now a placeholder
            }
          }
          previous = sent;
        }
        // Every step was a large one: it freed at least minStepTokens.
        for (const step of store.entries(STEP_KIND)) expect(step.freedTokens as number).toBeGreaterThanOrEqual(Math.max(1, minStepTokens));
      }),
      { numRuns: 60 },
    );
  });

  it("a reloaded pruner (same session store) sends exactly what the old one sent", () => {
    fc.assert(
      fc.property(turnsArb(16), (turns) => {
        const history = buildHistory(turns);
        const store = memorySessionStore();
        const first = new SessionPruner({ ...pruneDefaults, adaptive: false }, () => store);
        let last: AgentMessageLike[] = history;
        for (const point of requestPoints(history)) last = first.run(history.slice(0, point), window);
        const lastPoint = requestPoints(history).at(-1) ?? 0;
        const reloaded = new SessionPruner({ ...pruneDefaults, adaptive: false }, () => store);
        expect(JSON.stringify(reloaded.run(structuredClone(history.slice(0, lastPoint)), window))).toBe(JSON.stringify(last));
      }),
      { numRuns: 60 },
    );
  });

  it("adaptive mode flips only across the thresholds: on at enter, off below exit, never in between", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 60 }), (percents) => {
        const pruner = new SessionPruner({ ...pruneDefaults, adaptive: true, adaptiveEnterPercent: 60, adaptiveExitPercent: 40 }, memorySessionStore);
        const history = buildHistory([{ userImage: false, rounds: [] }]);
        let tight = false;
        for (const p of percents) {
          pruner.run(history, { tokens: p * 1000, contextWindow: 100_000, percent: null });
          if (!tight && p >= 60) tight = true;
          else if (tight && p < 40) tight = false;
          expect(pruner.mode).toBe(tight ? "tight" : "normal");
        }
      }),
    );
  });
});

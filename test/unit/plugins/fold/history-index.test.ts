/**
 * The incremental history index folding reads on every context call (history-index.ts,
 * turn-map.ts TurnMapBuilder) must see exactly what a fresh read of the same list sees, whatever
 * way the list changed since the last call: grown by a message (pi's steady state, as fresh deep
 * copies or the same objects), a new fold, a user pin, an unfold, a shorter list (compaction), a
 * rewritten tail (branch switch), or a message without a timestamp.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessageLike, SessionStore } from "pi-governor";
import { createLogger } from "pi-governor/host";
import { memorySessionStore } from "../../../../core/services.ts";
import { foldDefaults } from "../../../../plugins/fold/config.ts";
import { UNFOLD_KIND } from "../../../../plugins/fold/index.ts";
import { FoldSession } from "../../../../plugins/fold/session.ts";
import { mapTurns } from "../../../../plugins/fold/turn-map.ts";
import { PIN_KIND } from "../../../../plugins/prune/records.ts";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";

const logger = createLogger("test", () => {});
const sessionOn = (store: SessionStore) =>
  new FoldSession({
    options: { protectedFilePatterns: [], keepRecentTurns: 2, contextWindow: 200_000, ...foldDefaults },
    cwd: "/repo",
    root: "governor",
    store: () => store,
    logger,
  });

/** What folding derives from a list: turns, call places, folds in force, ranges. */
function derived(session: FoldSession, messages: readonly AgentMessageLike[]) {
  const ranges = session.foldedRanges(messages);
  const view = session.view(messages);
  return JSON.stringify({ ranges, turns: view.map.turns, calls: [...view.map.calls], active: view.active });
}

/** A generated coding session whose simulated model folds, as the list of the last request. */
const history = (() => {
  const requests = parseSession(
    generateSession({ turns: 80, seed: 7, coding: true, folds: true })
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).requests;
  return requests[requests.length - 1]!.messages;
})();

describe("HistoryIndex: incremental equals a fresh read", () => {
  it("holds folds to check (the generated session folds)", () => {
    const fresh = sessionOn(memorySessionStore());
    expect(fresh.view(history).active.length).toBeGreaterThan(1);
  });

  for (const copies of [true, false]) {
    it(`a list growing by one message per call (${copies ? "fresh deep copies" : "the same objects"}), with a pin and an unfold on the way`, () => {
      const store = memorySessionStore();
      const kept = sessionOn(store);
      const step = Math.max(1, Math.floor(history.length / 150));
      for (let n = 1; n <= history.length; n += step) {
        if (n > history.length / 3 && !store.entries(PIN_KIND).length) {
          const result = history.slice(0, n).find((m) => m.role === "toolResult") as { toolCallId: string; toolName: string };
          store.append(PIN_KIND, { toolCallId: result.toolCallId, toolName: result.toolName });
        }
        const active = kept.view(history.slice(0, n)).active;
        if (n > (2 * history.length) / 3 && active.length && !store.entries(UNFOLD_KIND).length) store.append(UNFOLD_KIND, { id: active[0]!.call.id });
        const list = copies ? structuredClone(history.slice(0, n)) : history.slice(0, n);
        expect(derived(kept, list), `at ${n} messages`).toBe(derived(sessionOn(store), list));
      }
      expect(store.entries(UNFOLD_KIND)).toHaveLength(1);
    });
  }

  it("a shorter list (compaction), a rewritten tail (branch), a message without a timestamp", () => {
    const store = memorySessionStore();
    const kept = sessionOn(store);
    const check = (list: readonly AgentMessageLike[], what: string) => expect(derived(kept, list), what).toBe(derived(sessionOn(store), list));
    check(history, "whole");
    const tail = history.slice(Math.floor(history.length / 2));
    check([{ role: "user", content: "summary of the start", timestamp: 1 } as AgentMessageLike, ...tail], "compacted");
    check(history, "whole again");
    const branch = history
      .slice(0, history.length - 40)
      .concat(
        structuredClone(history.slice(history.length - 40)).map(
          (m) => ({ ...m, timestamp: Number((m as { timestamp?: number }).timestamp) + 1 }) as AgentMessageLike,
        ),
      );
    check(branch, "branch");
    const unstamped = history.map((m, i) => (i === 100 ? ({ ...m, timestamp: undefined } as AgentMessageLike) : m));
    check(unstamped, "unstamped");
    check(history.slice(0, 300), "shorter");
  });

  it("mapTurns (a fresh read) is what the builder holds after any sequence of updates", () => {
    const store = memorySessionStore();
    const kept = sessionOn(store);
    for (const n of [50, 51, 52, 200, 120, 400, history.length]) {
      const list = history.slice(0, n);
      expect(JSON.stringify(kept.view(list).map.turns)).toBe(JSON.stringify(mapTurns(list, { userPins: new Map(), isProtected: () => false }).turns));
    }
  });
});

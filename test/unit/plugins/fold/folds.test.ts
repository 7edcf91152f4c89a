/**
 * Folds derived from the messages: which context_fold calls count, the range rules (whole finished
 * turns, no pins, no protected paths, no overlap), the suggestions a refusal carries, and the folds
 * in force for a list.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import {
  activeFolds,
  checkRange,
  describeRuns,
  foldableRuns,
  foldCalls,
  isProblem,
  MAX_ECHO_CHARS,
  turnBlocker,
  type RangeRules,
} from "../../../../plugins/fold/folds.ts";
import { mapTurns, type FoldGuards } from "../../../../plugins/fold/turn-map.ts";
import { turn, turns, user } from "../../../helpers/prune-fold.ts";

const none: FoldGuards = { userPins: new Map(), isProtected: () => false };
const foldCall = (id: string, args: Record<string, unknown>): AgentMessageLike => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "context_fold", arguments: args }],
});
const foldResult = (id: string, extra: Record<string, unknown> = {}): AgentMessageLike => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "context_fold",
  content: [{ type: "text", text: "folded" }],
  isError: false,
  ...extra,
});
const rules = (before: number): RangeRules => ({ before, folded: [] });

describe("foldCalls", () => {
  it("takes context_fold calls with string from, to and summary and a successful result, in call order", () => {
    const messages = [
      ...turns(3),
      user(4),
      foldCall("f1", { from: "c1", to: "c2", summary: "read two files" }),
      foldResult("f1"),
      foldCall("bad-args", { from: "c1", to: 7, summary: "x" }),
      foldResult("bad-args"),
      foldCall("failed", { from: "c1", to: "c1", summary: "x" }),
      foldResult("failed", { isError: true }),
      foldCall("governed-error", { from: "c1", to: "c1", summary: "x" }),
      foldResult("governed-error", { details: { governor: { status: "ERROR", durationMs: 1, retries: 0 } } }),
      foldCall("no-result", { from: "c1", to: "c1", summary: "x" }),
    ];
    expect(foldCalls(messages)).toEqual([{ id: "f1", from: "c1", to: "c2", summary: "read two files", callMessage: 13, blobId: undefined }]);
  });
});

describe("turnBlocker and checkRange", () => {
  it("accepts whole finished turns and widens call ids to their turn indexes", () => {
    const map = mapTurns(turns(4), none);
    expect(checkRange(map, "c1", "c3", rules(3))).toEqual({ first: 0, last: 2 });
    expect(turnBlocker(map, 1, rules(3))).toBeUndefined();
  });

  it("refuses an unfinished turn, naming the first finished one", () => {
    const map = mapTurns(turns(3), none);
    expect(turnBlocker(map, 2, rules(2))).toBe("turn 3 is not finished (only turns before turn 3 are)");
    const r = checkRange(map, "c2", "c3", rules(2));
    expect(isProblem(r) && r.problem).toBe("turns 2-3 cannot be folded: turn 3 is not finished (only turns before turn 3 are)");
    expect(isProblem(r) && r.fix).toBe('Fold a part that can be folded: turn 2 (from "c2" to "c2").');
  });

  it("refuses pinned results, protected paths, incomplete turns and overlaps, each with its reason", () => {
    const guards: FoldGuards = { userPins: new Map([["c1", {}]]), isProtected: (p) => p === "f2.ts" };
    const messages = [
      ...turns(2),
      user(3),
      { role: "assistant", content: [{ type: "toolCall", id: "open", name: "read", arguments: {} }] } as AgentMessageLike,
      ...turn(4),
    ];
    const map = mapTurns(messages, guards);
    expect(turnBlocker(map, 0, rules(4))).toBe("turn 1 holds the pinned result of c1");
    expect(turnBlocker(map, 1, rules(4))).toBe("turn 2 has a call on the protected path f2.ts (c2)");
    expect(turnBlocker(map, 2, rules(4))).toBe("turn 3 has a tool call without its result (or a result without its call)");
    const free = mapTurns(turns(3), none);
    const folded = {
      call: { id: "f9", from: "c1", to: "c2", summary: "s", callMessage: 99, blobId: undefined },
      first: 0,
      last: 1,
      start: 0,
      end: 8,
      chars: 0,
    };
    expect(turnBlocker(free, 1, { before: 3, folded: [folded] })).toBe("turn 2 is already folded by f9");
    expect(turnBlocker(free, 2, { before: 3, folded: [folded] })).toBeUndefined();
  });

  it("refuses unknown ids, ids before the first turn and a reversed range, echoing the model's ids cut to a bound", () => {
    const map = mapTurns(
      [{ role: "assistant", content: [{ type: "toolCall", id: "pre", name: "read", arguments: {} }] } as AgentMessageLike, ...turns(3)],
      none,
    );
    const long = "z".repeat(10_000);
    const unknown = checkRange(map, long, "c2", rules(3));
    expect(isProblem(unknown) && unknown.problem).toBe(
      `from "${"z".repeat(MAX_ECHO_CHARS)}…" (10,000 characters) is not the id of a tool call in this session's context`,
    );
    expect(isProblem(unknown) && unknown.fix).toContain("Foldable now: turns 1-3");
    const pre = checkRange(map, "pre", "c2", rules(3));
    expect(isProblem(pre) && pre.problem).toBe('from "pre" comes before the first user message and belongs to no turn');
    const reversed = checkRange(map, "c3", "c1", rules(3));
    expect(isProblem(reversed) && reversed.problem).toBe('from "c3" comes after to "c1"');
  });
});

describe("foldableRuns and describeRuns", () => {
  it("finds maximal runs between blockers, trimmed to turns with calls, longest first then oldest", () => {
    const guards: FoldGuards = { userPins: new Map([["c3", {}]]), isProtected: () => false };
    const messages = [
      ...turns(2),
      ...turns(3, 3),
      user(6),
      { role: "assistant", content: [{ type: "text", text: "no call" }] } as AgentMessageLike,
      ...turn(7),
    ];
    const map = mapTurns(messages, guards);
    const runs = foldableRuns(map, 0, 6, rules(7));
    expect(runs.map((r) => [r.first.ordinal, r.last.ordinal, r.from, r.to])).toEqual([
      [4, 7, "c4", "c7"],
      [1, 2, "c1", "c2"],
    ]);
    expect(foldableRuns(map, 0, 6, rules(7), 3)).toHaveLength(1);
    // A run ending in a turn without calls ends at the last turn with one.
    expect(foldableRuns(map, 3, 5, rules(7)).map((r) => [r.first.ordinal, r.last.ordinal, r.from, r.to])).toEqual([[4, 5, "c4", "c5"]]);
    expect(describeRuns(runs)).toBe('turns 4-7 (from "c4" to "c7"), turns 1-2 (from "c1" to "c2")');
    expect(describeRuns([])).toBe("no finished turn can be folded right now");
  });
});

describe("activeFolds", () => {
  it("keeps valid folds in call order, skips unfolded ones, and reports an overlapping later fold", () => {
    const messages = [
      ...turns(4),
      user(5),
      foldCall("f1", { from: "c1", to: "c2", summary: "a" }),
      foldResult("f1"),
      foldCall("f2", { from: "c2", to: "c3", summary: "b" }),
      foldResult("f2"),
      foldCall("f3", { from: "c3", to: "c4", summary: "c" }),
      foldResult("f3"),
    ];
    const map = mapTurns(messages, none);
    const calls = foldCalls(messages);
    const { active, invalid } = activeFolds(calls, map, new Set(), (s, e) => e - s);
    expect(active.map((f) => [f.call.id, f.first, f.last, f.start, f.end, f.chars])).toEqual([
      ["f1", 0, 1, 0, 8, 8],
      ["f3", 2, 3, 8, 16, 8],
    ]);
    expect(invalid).toEqual([{ id: "f2", reason: "turns 2-3 cannot be folded: turn 2 is already folded by f1" }]);
    const afterUnfold = activeFolds(calls, map, new Set(["f1"]), () => 0);
    expect(afterUnfold.active.map((f) => f.call.id)).toEqual(["f2"]);
    expect(afterUnfold.invalid.map((f) => f.id)).toEqual(["f3"]);
  });

  it("a fold of its own turn or later is not in force", () => {
    const messages = [...turns(2), user(3), foldCall("f1", { from: "c1", to: "f1", summary: "self" }), foldResult("f1")];
    const { active, invalid } = activeFolds(foldCalls(messages), mapTurns(messages, none), new Set(), () => 0);
    expect(active).toEqual([]);
    expect(invalid[0]!.reason).toContain("turn 3 is not finished");
  });
});

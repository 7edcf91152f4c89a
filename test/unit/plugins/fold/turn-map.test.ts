/**
 * The turn map folding works on: turns start at user messages, calls are placed, a turn is complete
 * only with every call/result pair inside it, pins and protected paths are noted, and the
 * incremental builder maps to the same result as mapping from scratch.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { isAfter, mapTurns, TurnMapBuilder, turnLabel, type FoldGuards } from "../../../../plugins/fold/turn-map.ts";
import { turn, turns, user } from "../../../helpers/prune-fold.ts";

const none: FoldGuards = { userPins: new Map(), isProtected: () => false };
const call = (id: string, name = "read", args: Record<string, unknown> = { path: "a.ts" }): AgentMessageLike => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
});
const result = (id: string, name = "read", details?: Record<string, unknown>): AgentMessageLike => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text: "ok" }],
  isError: false,
  ...(details ? { details } : {}),
});

describe("mapTurns", () => {
  it("splits at user messages, numbering turns from 1, with message ranges and calls in order", () => {
    const map = mapTurns(turns(3), none);
    expect(map.turns.map((t) => [t.ordinal, t.start, t.end, t.calls, t.complete])).toEqual([
      [1, 0, 4, ["c1"], true],
      [2, 4, 8, ["c2"], true],
      [3, 8, 12, ["c3"], true],
    ]);
    expect(map.calls.get("c2")).toEqual({ turn: 1, message: 5, block: 1 });
  });

  it("messages before the first user message belong to no turn (turn -1)", () => {
    const map = mapTurns([call("early"), result("early"), ...turn(1)], none);
    expect(map.turns).toHaveLength(1);
    expect(map.calls.get("early")).toEqual({ turn: -1, message: 0, block: 0 });
  });

  it("a turn is incomplete when a call's result is missing or a result's call is elsewhere", () => {
    const map = mapTurns([user(1), call("a"), user(2), result("a"), call("b"), result("b")], none);
    expect(map.turns.map((t) => t.complete)).toEqual([false, false]);
    expect(mapTurns([user(1), call("a"), result("a")], none).turns[0]!.complete).toBe(true);
  });

  it("notes pinned results (meta or a user pin) and calls on protected paths", () => {
    const guards: FoldGuards = { userPins: new Map([["b", {}]]), isProtected: (p) => p.endsWith(".env") };
    const map = mapTurns([user(1), call("a", "read", { path: "config/.env" }), result("a", "read", { pinned: true }), call("b"), result("b")], guards);
    expect(map.turns[0]!.pinned).toEqual(["a", "b"]);
    expect(map.turns[0]!.protectedCalls).toEqual([{ id: "a", path: "config/.env" }]);
  });

  it("a duplicated call id keeps its first place", () => {
    const map = mapTurns([user(1), call("dup"), result("dup"), user(2), call("dup"), result("dup")], none);
    expect(map.calls.get("dup")).toMatchObject({ turn: 0, message: 1 });
  });
});

describe("TurnMapBuilder", () => {
  it("maps a growing history incrementally to the same map as from scratch, restarting at the changed turn", () => {
    const builder = new TurnMapBuilder();
    const history = turns(3);
    builder.update(history, 0, none);
    const grown = [...history, ...turn(4), user(5), call("c5")];
    expect(builder.update(grown, history.length, none)).toBe(8); // the start of turn 3, the last one mapped
    const fresh = mapTurns(grown, none);
    expect(builder.map.turns).toEqual(fresh.turns);
    expect([...builder.map.calls]).toEqual([...fresh.calls]);
  });

  it("rolls back calls and fold sites of a rewritten tail", () => {
    const builder = new TurnMapBuilder();
    const a = [...turns(2), user(3), call("f1", "context_fold", { from: "c1", to: "c1", summary: "s" }), result("f1", "context_fold")];
    builder.update(a, 0, none);
    expect(builder.foldSites.map((s) => s.id)).toEqual(["f1"]);
    expect(builder.foldResults.get("f1")).toBe(10);
    const b = [...turns(2), user(3), call("x")];
    builder.update(b, 9, none);
    expect(builder.foldSites).toEqual([]);
    expect(builder.foldResults.size).toBe(0);
    expect(builder.map.calls.has("f1")).toBe(false);
    expect(builder.map.turns).toEqual(mapTurns(b, none).turns);
  });
});

describe("isAfter and turnLabel", () => {
  it("orders call places by message, then block", () => {
    expect(isAfter({ turn: 0, message: 3, block: 0 }, { turn: 0, message: 2, block: 5 })).toBe(true);
    expect(isAfter({ turn: 0, message: 2, block: 1 }, { turn: 0, message: 2, block: 0 })).toBe(true);
    expect(isAfter({ turn: 0, message: 2, block: 0 }, { turn: 0, message: 2, block: 0 })).toBe(false);
  });

  it("names one turn or a range", () => {
    const [t1, t2] = mapTurns(turns(2), none).turns;
    expect(turnLabel(t1!, t1!)).toBe("turn 1");
    expect(turnLabel(t1!, t2!)).toBe("turns 1-2");
  });
});

/**
 * The facts folding needs about a message list, by turn (turns.ts: a turn starts at a user message):
 * where each tool call is, whether every call of a turn has its result in the same turn (so folding
 * whole turns never splits a toolCall/toolResult pair), and what must never be folded (pinned
 * results, calls on protected paths).
 */
import { messageMeta, type AgentMessageLike } from "../../../core/index.ts";
import { callPath } from "../paths.ts";
import { turnStarts } from "../turns.ts";

/** One turn of the list. */
export interface TurnFacts {
  /** 1-based turn number, as messages to the model and the user name it. */
  ordinal: number;
  /** First message index (the user message). */
  start: number;
  /** One past the last message index. */
  end: number;
  /** Tool call ids in call order. */
  calls: string[];
  /** Every call has its result in this turn and every result's call is in this turn. */
  complete: boolean;
  /** Call ids whose result is pinned (meta.pinned or a user pin). */
  pinned: string[];
  /** Calls whose path matches `protectedFilePatterns`. */
  protectedCalls: Array<{ id: string; path: string }>;
}

/** Where one tool call is. */
export interface CallPlace {
  /** Index into `turns`, -1 before the first user message. */
  turn: number;
  message: number;
  block: number;
}

/** A message list mapped by turn. */
export interface TurnMap {
  turns: TurnFacts[];
  calls: Map<string, CallPlace>;
}

/** What may not be folded. */
export interface FoldGuards {
  /** User pins (records.ts loadPins), by tool call id. */
  userPins: ReadonlyMap<string, unknown>;
  /** Whether a path is protected (paths.ts protectedPathMatcher). */
  isProtected(path: string): boolean;
}

type Block = { type?: string; id?: unknown; arguments?: unknown };

/** Maps `messages` by turn. Linear in the number of messages and blocks. */
export function mapTurns(messages: readonly AgentMessageLike[], guards: FoldGuards): TurnMap {
  const starts = turnStarts(messages);
  const calls = new Map<string, CallPlace>();
  const turns: TurnFacts[] = [];
  const firstStart = starts.length ? starts[0]! : messages.length;
  for (let i = 0; i < firstStart; i++) recordCalls(messages[i]!, i, -1, calls);
  for (let t = 0; t < starts.length; t++) {
    const start = starts[t]!;
    const end = t + 1 < starts.length ? starts[t + 1]! : messages.length;
    const turn: TurnFacts = { ordinal: t + 1, start, end, calls: [], complete: true, pinned: [], protectedCalls: [] };
    const results = new Set<string>();
    for (let i = start; i < end; i++) {
      const m = messages[i]!;
      if (m.role === "assistant") {
        for (const id of recordCalls(m, i, t, calls)) turn.calls.push(id);
        for (const b of blocksOf(m)) {
          if (b.type !== "toolCall" || typeof b.id !== "string") continue;
          const path = callPath(b.arguments as Record<string, unknown> | undefined);
          if (path !== undefined && guards.isProtected(path)) turn.protectedCalls.push({ id: b.id, path });
        }
      } else if (m.role === "toolResult") {
        const id = String((m as { toolCallId?: unknown }).toolCallId);
        results.add(id);
        if (messageMeta(m).pinned === true || guards.userPins.has(id)) turn.pinned.push(id);
      }
    }
    const own = new Set(turn.calls);
    turn.complete = turn.calls.every((id) => results.has(id)) && [...results].every((id) => own.has(id));
    turns.push(turn);
  }
  return { turns, calls };
}

function blocksOf(m: AgentMessageLike): Block[] {
  return Array.isArray(m.content) ? (m.content as Block[]) : [];
}

function recordCalls(m: AgentMessageLike, index: number, turn: number, calls: Map<string, CallPlace>): string[] {
  if (m.role !== "assistant") return [];
  const ids: string[] = [];
  blocksOf(m).forEach((b, block) => {
    if (b.type !== "toolCall" || typeof b.id !== "string") return;
    // The first call with an id wins: a duplicated id (a broken history) must not move a range.
    if (!calls.has(b.id)) calls.set(b.id, { turn, message: index, block });
    ids.push(b.id);
  });
  return ids;
}

/** Whether call place `a` comes after `b`. */
export function isAfter(a: CallPlace, b: CallPlace): boolean {
  return a.message > b.message || (a.message === b.message && a.block > b.block);
}

/** "turn 3" or "turns 3-9". */
export function turnLabel(first: TurnFacts, last: TurnFacts): string {
  return first.ordinal === last.ordinal ? `turn ${first.ordinal}` : `turns ${first.ordinal}-${last.ordinal}`;
}

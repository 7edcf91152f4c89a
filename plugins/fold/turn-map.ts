/**
 * The facts folding needs about a message list, by turn (lib/context turns.ts: a turn starts at a user message):
 * where each tool call is, whether every call of a turn has its result in the same turn (so folding
 * whole turns never splits a toolCall/toolResult pair), and what must never be folded (pinned
 * results, calls on protected paths).
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import { callPath, FOLD_TOOL, startsTurn } from "../../lib/context/index.ts";

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

type Block = { type?: string; id?: unknown; name?: unknown; arguments?: unknown };

/** Maps `messages` by turn. Linear in the number of messages and blocks. */
export function mapTurns(messages: readonly AgentMessageLike[], guards: FoldGuards): TurnMap {
  const builder = new TurnMapBuilder();
  builder.update(messages, 0, guards);
  return builder.map;
}

/** A `context_fold` tool call as the assistant made it (its result may not be there yet). */
export interface FoldCallSite {
  id: string;
  /** Index of the assistant message. */
  message: number;
  arguments: unknown;
}

/**
 * A turn map kept up to date as the history grows: `update(messages, changedFrom)` keeps every turn
 * that ends before `changedFrom` (messages at lower indexes are the ones mapped before) and maps
 * again only from the start of the turn holding `changedFrom`. So a call that adds a message costs
 * the current turn, not the history. It also collects the `context_fold` calls and results (folds.ts).
 */
export class TurnMapBuilder {
  readonly map: TurnMap = { turns: [], calls: new Map() };
  /** Fold call sites in message order. */
  readonly foldSites: FoldCallSite[] = [];
  /** Fold results by tool call id: message index. */
  readonly foldResults = new Map<string, number>();
  /** Calls entered into `map.calls`, in order (a duplicated id is entered once), for rolling back. */
  private readonly entered: Array<{ id: string; message: number }> = [];
  private readonly resultOrder: Array<{ id: string; message: number }> = [];
  /** Messages mapped so far. */
  private mapped = 0;

  /**
   * Maps `messages`, of which those below `changedFrom` are the ones the last update saw at the same
   * indexes (pass 0 after anything else changed, e.g. the pins). Returns the index mapping restarted
   * from: the start of the first turn mapped again.
   */
  update(messages: readonly AgentMessageLike[], changedFrom: number, guards: FoldGuards): number {
    const turns = this.map.turns;
    let from = Math.min(changedFrom, this.mapped, messages.length);
    // Drop the turns from the one holding `from` on; mapping restarts at its user message.
    while (turns.length && turns[turns.length - 1]!.start >= from) turns.pop();
    if (turns.length) {
      from = turns[turns.length - 1]!.start;
      turns.pop();
    } else from = 0;
    while (this.entered.length && this.entered[this.entered.length - 1]!.message >= from) this.map.calls.delete(this.entered.pop()!.id);
    while (this.foldSites.length && this.foldSites[this.foldSites.length - 1]!.message >= from) this.foldSites.pop();
    while (this.resultOrder.length && this.resultOrder[this.resultOrder.length - 1]!.message >= from) this.foldResults.delete(this.resultOrder.pop()!.id);
    this.mapped = messages.length;

    let i = from;
    // Messages before the first user message belong to no turn.
    for (; i < messages.length && !startsTurn(messages[i]!); i++) this.record(messages[i]!, i, -1);
    while (i < messages.length) {
      const t = turns.length;
      const turn: TurnFacts = { ordinal: t + 1, start: i, end: i, calls: [], complete: true, pinned: [], protectedCalls: [] };
      const results = new Set<string>();
      let j = i;
      do {
        const m = messages[j]!;
        if (m.role === "assistant") {
          for (const id of this.record(m, j, t)) turn.calls.push(id);
          for (const b of blocksOf(m)) {
            if (b.type !== "toolCall" || typeof b.id !== "string") continue;
            const path = callPath(b.arguments as Record<string, unknown> | undefined);
            if (path !== undefined && guards.isProtected(path)) turn.protectedCalls.push({ id: b.id, path });
          }
        } else if (m.role === "toolResult") {
          const id = String((m as { toolCallId?: unknown }).toolCallId);
          results.add(id);
          if (messageMeta(m).pinned === true || guards.userPins.has(id)) turn.pinned.push(id);
          this.record(m, j, t);
        }
        j++;
      } while (j < messages.length && !startsTurn(messages[j]!));
      turn.end = j;
      const own = new Set(turn.calls);
      turn.complete = turn.calls.every((id) => results.has(id)) && [...results].every((id) => own.has(id));
      turns.push(turn);
      i = j;
    }
    return from;
  }

  /** Enters the calls of `m` (an assistant message) and fold results; returns the call ids. */
  private record(m: AgentMessageLike, index: number, turn: number): string[] {
    if (m.role === "toolResult") {
      if ((m as { toolName?: unknown }).toolName === FOLD_TOOL) {
        const id = String((m as { toolCallId?: unknown }).toolCallId);
        this.foldResults.set(id, index);
        this.resultOrder.push({ id, message: index });
      }
      return [];
    }
    if (m.role !== "assistant") return [];
    const ids: string[] = [];
    blocksOf(m).forEach((b, block) => {
      if (b.type !== "toolCall" || typeof b.id !== "string") return;
      // The first call with an id wins: a duplicated id (a broken history) must not move a range.
      if (!this.map.calls.has(b.id)) {
        this.map.calls.set(b.id, { turn, message: index, block });
        this.entered.push({ id: b.id, message: index });
      }
      if (b.name === FOLD_TOOL) this.foldSites.push({ id: b.id, message: index, arguments: b.arguments });
      ids.push(b.id);
    });
    return ids;
  }
}

function blocksOf(m: AgentMessageLike): Block[] {
  return Array.isArray(m.content) ? (m.content as Block[]) : [];
}

/** Whether call place `a` comes after `b`. */
export function isAfter(a: CallPlace, b: CallPlace): boolean {
  return a.message > b.message || (a.message === b.message && a.block > b.block);
}

/** "turn 3" or "turns 3-9". */
export function turnLabel(first: TurnFacts, last: TurnFacts): string {
  return first.ordinal === last.ordinal ? `turn ${first.ordinal}` : `turns ${first.ordinal}-${last.ordinal}`;
}

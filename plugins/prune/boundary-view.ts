/**
 * What the pruner knows of a message list up to a boundary: where each tool call and its result
 * sit, which turn made the call, and the relations between results (duplicates, stale reads).
 *
 * Every decision for a message before the boundary B is a function of messages[0, B) only, so a
 * view is computed once per boundary and decisions change only when the boundary steps: the prompt
 * prefix stays byte-identical between steps, and a reload recomputes the same bytes.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { type RelationOptions, type ResultRelation, resultRelations } from "./relations.ts";

/** Where one completed tool call sits. */
export interface CallSite {
  /** Index of the assistant message holding the call. */
  assistantIndex: number;
  /** Index of its result. */
  resultIndex: number;
  isError: boolean;
  /** 1-based ordinal of the turn that made the call (0: before the first user message). */
  turn: number;
}

/** The facts of messages[0, upTo). */
export interface BoundaryView {
  upTo: number;
  /** Turns that start before `upTo`. */
  turns: number;
  /** Calls whose result lies before `upTo`, by tool call id. */
  calls: ReadonlyMap<string, CallSite>;
  /** Results that are duplicates or stale reads, by tool call id. */
  relations: ReadonlyMap<string, ResultRelation>;
}

/** The view of messages[0, upTo) (see the module comment). */
export function boundaryView(messages: readonly AgentMessageLike[], upTo: number, options: RelationOptions): BoundaryView {
  const pending = new Map<string, { assistantIndex: number; turn: number }>();
  const calls = new Map<string, CallSite>();
  let turns = 0;
  for (let i = 0; i < upTo; i++) {
    const m = messages[i]!;
    if (m.role === "user") turns++;
    else if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type?: unknown; id?: unknown }>) {
        if (b && b.type === "toolCall" && typeof b.id === "string") pending.set(b.id, { assistantIndex: i, turn: turns });
      }
    } else if (m.role === "toolResult") {
      const id = (m as { toolCallId?: unknown }).toolCallId;
      const call = typeof id === "string" ? pending.get(id) : undefined;
      if (call) calls.set(id as string, { ...call, resultIndex: i, isError: (m as { isError?: unknown }).isError === true });
    }
  }
  const relations = options.dedup || options.staleReads ? resultRelations(messages, upTo, options) : new Map<string, ResultRelation>();
  return { upTo, turns, calls, relations };
}

/** The empty view (no boundary yet). */
export const EMPTY_VIEW: BoundaryView = Object.freeze({ upTo: 0, turns: 0, calls: new Map(), relations: new Map() });

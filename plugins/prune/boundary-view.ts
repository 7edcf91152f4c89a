/**
 * What a boundary step knows of the messages it covers: where each tool call and its result sit,
 * which turn made the call, and the relations between results (duplicates, stale reads).
 *
 * A message is judged when the boundary passes it, by the messages before that boundary only, and
 * the judgement is kept: the prompt prefix stays byte-identical between steps, and a reload
 * recomputes the same bytes from the persisted steps.
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

/** The facts of messages[from, upTo): the messages one boundary step covers. */
export interface BoundaryView {
  from: number;
  upTo: number;
  /** Calls whose result lies before `upTo`, by tool call id. */
  calls: ReadonlyMap<string, CallSite>;
  /** Results that are duplicates or stale reads, by tool call id. */
  relations: ReadonlyMap<string, ResultRelation>;
}

/**
 * The view of the step that covers messages[from, upTo), whole turns. A result's relations are
 * judged by the calls after it and before `upTo`, and a step covers whole turns, so the covered
 * range alone decides them: a view costs the size of the step, not of the history.
 * `turnsBefore`: turns that start before `from` (call sites carry session-wide turn ordinals).
 */
export function boundaryView(messages: readonly AgentMessageLike[], from: number, upTo: number, turnsBefore: number, options: RelationOptions): BoundaryView {
  const pending = new Map<string, { assistantIndex: number; turn: number }>();
  const calls = new Map<string, CallSite>();
  let turns = turnsBefore;
  for (let i = from; i < upTo; i++) {
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
  const relations =
    options.dedup || options.staleReads
      ? resultRelations(from === 0 ? messages : messages.slice(from, upTo), upTo - from, options)
      : new Map<string, ResultRelation>();
  return { from, upTo, calls, relations };
}

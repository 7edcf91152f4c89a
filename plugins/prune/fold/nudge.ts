/**
 * The fold nudge: when the context nears the adaptive threshold, one text block appended to the
 * user message that starts the current turn names a range of finished turns and the exact
 * `context_fold` call that folds it.
 *
 * Cache-aware by construction: it is only added on the first request of a turn (nothing after the
 * user message yet, so no message the provider already cached changes), and it is persisted
 * (records.ts, keyed by the user message's turnKey) so every later request renders the same bytes at
 * that message. At most one nudge per {@link NUDGE_EVERY_TURNS} turns, none while a fold is younger
 * than {@link FOLD_QUIET_TURNS} turns.
 */
import type { AgentMessageLike, ContentBlock } from "../../../core/index.ts";
import { turnKey } from "../pruner.ts";
import { type ActiveFold, FOLD_TOOL, foldableRuns } from "./folds.ts";
import type { NudgeRecord } from "./records.ts";
import { turnLabel, type TurnMap } from "./turn-map.ts";

/** Turns between two nudges, at least. */
export const NUDGE_EVERY_TURNS = 10;
/** Turns after a fold before the next nudge, at least. */
export const FOLD_QUIET_TURNS = 10;
/** Turns a nudged range holds, at least. */
export const NUDGE_MIN_TURNS = 2;

/** Prefix of every nudge text. */
export const NUDGE_PREFIX = "[pi-governor: the context is at ";

/** What decides a nudge. */
export interface NudgeInput {
  messages: readonly AgentMessageLike[];
  map: TurnMap;
  active: readonly ActiveFold[];
  /** Persisted nudges. */
  nudges: readonly NudgeRecord[];
  /** Context size (history before pruning, folds applied), percent of the window. */
  percent: number;
  foldNudgePercent: number;
  keepRecentTurns: number;
}

/** A new nudge to persist and show, or undefined. */
export function nudgeFor(input: NudgeInput): NudgeRecord | undefined {
  const { messages, map } = input;
  const count = map.turns.length;
  if (!count || input.percent < input.foldNudgePercent) return undefined;
  const current = map.turns[count - 1]!;
  for (let i = current.start + 1; i < messages.length; i++) if (messages[i]!.role === "assistant" || messages[i]!.role === "toolResult") return undefined;
  const key = turnKey(messages[current.start]!);
  const keys = new Set(input.nudges.map((r) => r.key));
  if (keys.has(key)) return undefined;
  for (const turn of map.turns) if (keys.has(turnKey(messages[turn.start]!)) && current.ordinal - turn.ordinal < NUDGE_EVERY_TURNS) return undefined;
  for (const fold of input.active) {
    const place = map.calls.get(fold.call.id);
    if (place && place.turn >= 0 && count - 1 - place.turn < FOLD_QUIET_TURNS) return undefined;
  }
  const before = count - Math.max(1, input.keepRecentTurns);
  const run = foldableRuns(map, 0, before - 1, { before, folded: input.active }, NUDGE_MIN_TURNS)[0];
  if (!run) return undefined;
  const call = `${FOLD_TOOL}(${JSON.stringify({ from: run.from, to: run.to, summary: "..." })})`;
  const label = turnLabel(run.first, run.last);
  const text = `${NUDGE_PREFIX}${Math.round(input.percent)}% of the window. ${label[0]!.toUpperCase()}${label.slice(1)} are finished: fold them with ${call} to keep the context lean; the originals stay retrievable.]`;
  return { key, text };
}

/** `message` (a user message) with `text` appended as one more text block. */
export function withNudge(message: AgentMessageLike, text: string): AgentMessageLike {
  const content = (message as { content?: unknown }).content;
  const blocks: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as ContentBlock[]) : [];
  return { ...message, content: [...blocks, { type: "text", text }] } as AgentMessageLike;
}

/** `messages` (a copy when anything changes) with each persisted nudge appended to its user message. */
export function applyNudges(messages: readonly AgentMessageLike[], map: TurnMap, nudges: readonly NudgeRecord[]): readonly AgentMessageLike[] {
  if (!nudges.length) return messages;
  const byKey = new Map(nudges.map((r) => [r.key, r.text]));
  let out: AgentMessageLike[] | undefined;
  for (const turn of map.turns) {
    const text = byKey.get(turnKey(messages[turn.start]!));
    if (text === undefined) continue;
    out ??= messages.slice();
    out[turn.start] = withNudge(messages[turn.start]!, text);
  }
  return out ?? messages;
}

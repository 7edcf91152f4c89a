/**
 * The fold nudge: when the context nears the adaptive threshold, one text block appended to the
 * user message that starts the current turn names a range of finished turns and the exact
 * `context_fold` call that folds it.
 *
 * Cache-aware by construction: it is only added on the first request of a turn (nothing after the
 * user message yet, so no message the provider already cached changes), and it is persisted
 * (records.ts, keyed by the user message's turnKey) so every later request renders the same bytes at
 * that message. At most one nudge per {@link NUDGE_EVERY_TURNS} turns, none while a fold is younger
 * than {@link FOLD_QUIET_TURNS} turns. A nudge stays in the prompt for the rest of the session, so a
 * model that does not fold pays for every one: the spacing doubles with each nudge left unanswered
 * (no fold since), and after {@link MAX_UNANSWERED_NUDGES} the nudging waits for the model to fold.
 */
import type { AgentMessageLike, ContentBlock } from "../../core/index.ts";
import { turnKey } from "../../lib/context/index.ts";
import { type ActiveFold, FOLD_TOOL, foldableRuns } from "./folds.ts";
import type { NudgeRecord } from "./records.ts";
import { turnLabel, type TurnMap } from "./turn-map.ts";

/** Turns between two nudges, at least. */
export const NUDGE_EVERY_TURNS = 10;
/** Turns after a fold before the next nudge, at least. */
export const FOLD_QUIET_TURNS = 10;
/** Turns a nudged range holds, at least. */
export const NUDGE_MIN_TURNS = 2;
/** Nudges in a row without a fold, at most: then no nudge until the model folds. */
export const MAX_UNANSWERED_NUDGES = 3;

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
  /** turnKey of turn `t`'s user message (history-index.ts keeps them); default: computed. */
  keyOf?: (t: number) => string;
  /** The turn whose user message has turnKey `key` (history-index.ts keeps them); default: computed. */
  turnOf?: (key: string) => number | undefined;
}

/** A new nudge to persist and show, or undefined. */
export function nudgeFor(input: NudgeInput): NudgeRecord | undefined {
  const { messages, map } = input;
  const count = map.turns.length;
  if (!count || input.percent < input.foldNudgePercent) return undefined;
  const current = map.turns[count - 1]!;
  for (let i = current.start + 1; i < messages.length; i++) if (messages[i]!.role === "assistant" || messages[i]!.role === "toolResult") return undefined;
  const keyOf = input.keyOf ?? ((t: number) => turnKey(messages[map.turns[t]!.start]!));
  const key = keyOf(count - 1);
  if (input.nudges.some((r) => r.key === key)) return undefined;
  let lastFold = -1;
  for (const fold of input.active) {
    const place = map.calls.get(fold.call.id);
    if (place && place.turn >= 0) lastFold = Math.max(lastFold, place.turn);
  }
  if (lastFold >= 0 && count - 1 - lastFold < FOLD_QUIET_TURNS) return undefined;
  // Nudges of turns after the last fold went unanswered; a nudge whose turn left the history (compaction) is not counted.
  const turnOf = input.turnOf ?? turnsByKey(messages, map);
  let unanswered = 0;
  let lastNudge = -1;
  for (const r of input.nudges) {
    const t = turnOf(r.key);
    if (t === undefined || t <= lastFold) continue;
    unanswered++;
    lastNudge = Math.max(lastNudge, t);
  }
  if (unanswered >= MAX_UNANSWERED_NUDGES) return undefined;
  if (lastNudge >= 0 && count - 1 - lastNudge < NUDGE_EVERY_TURNS * 2 ** Math.max(0, unanswered - 1)) return undefined;
  const before = count - Math.max(1, input.keepRecentTurns);
  const run = foldableRuns(map, 0, before - 1, { before, folded: input.active }, NUDGE_MIN_TURNS)[0];
  if (!run) return undefined;
  const call = `${FOLD_TOOL}(${JSON.stringify({ from: run.from, to: run.to, summary: "..." })})`;
  const label = turnLabel(run.first, run.last);
  const text = `${NUDGE_PREFIX}${Math.round(input.percent)}% of the window. ${label[0]!.toUpperCase()}${label.slice(1)} are finished: fold them with ${call} to keep the context lean; the originals stay retrievable.]`;
  return { key, text };
}

/** The first turn of each turnKey, computed from the messages. */
function turnsByKey(messages: readonly AgentMessageLike[], map: TurnMap): (key: string) => number | undefined {
  const byKey = new Map<string, number>();
  map.turns.forEach((turn, t) => {
    const k = turnKey(messages[turn.start]!);
    if (!byKey.has(k)) byKey.set(k, t);
  });
  return (key) => byKey.get(key);
}

/** `message` (a user message) with `text` appended as one more text block. */
export function withNudge(message: AgentMessageLike, text: string): AgentMessageLike {
  const content = (message as { content?: unknown }).content;
  const blocks: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as ContentBlock[]) : [];
  return { ...message, content: [...blocks, { type: "text", text }] } as AgentMessageLike;
}

/**
 * `messages` (a copy when anything changes) with each persisted nudge appended to its user message.
 * `turnOf` finds the turn of a key (history-index.ts keeps them); default: every turn's key computed.
 */
export function applyNudges(
  messages: readonly AgentMessageLike[],
  map: TurnMap,
  nudges: readonly NudgeRecord[],
  turnOf?: (key: string) => number | undefined,
): readonly AgentMessageLike[] {
  if (!nudges.length) return messages;
  const find = turnOf ?? turnsByKey(messages, map);
  let out: AgentMessageLike[] | undefined;
  for (const nudge of nudges) {
    const t = find(nudge.key);
    if (t === undefined) continue;
    const start = map.turns[t]!.start;
    out ??= messages.slice();
    out[start] = withNudge(out[start]!, nudge.text);
  }
  return out ?? messages;
}

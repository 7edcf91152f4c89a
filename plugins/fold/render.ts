/**
 * What the model is sent for a fold: the fold's whole turns replaced by ONE message carrying the
 * model's summary. It is a pi custom message (`role: "custom"`), which pi's convertToLlm turns into
 * a user message the model reads (pi 0.73 and 0.87 alike; `display: false` keeps it out of the TUI).
 * Whole turns only, so every toolCall/toolResult pair is either kept or folded with its partner.
 *
 * The text is a pure function of the fold (its id, turn numbers, size, summary, blob id), and a
 * session reuses the object it built for a fold id while that key is unchanged: the same history
 * always renders to the same bytes, so the prompt cache keeps matching after the one change a fold makes.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { blobReadCall } from "../blobs/index.ts";
import type { ActiveFold } from "./folds.ts";
import type { TurnMap } from "./turn-map.ts";
import { turnLabel } from "./turn-map.ts";

/** customType of the message that stands for folded turns. */
export const FOLD_MESSAGE_TYPE = "governor:fold";

const n = (v: number) => v.toLocaleString("en-US");

/** The text of a fold's message. */
export function foldText(fold: ActiveFold, map: TurnMap, root: string): string {
  const label = turnLabel(map.turns[fold.first]!, map.turns[fold.last]!);
  const head = `[Folded ${label} by context_fold ${fold.call.id}: ${n(fold.end - fold.start)} messages, ${n(fold.chars)} chars]`;
  const back = fold.call.blobId
    ? `(Originals: ${blobReadCall(fold.call.blobId)}, one message per line; the user can restore them with /${root} unfold ${fold.call.id}.)`
    : `(Originals: kept in the session; the user can restore them with /${root} unfold ${fold.call.id}.)`;
  return `${head}\n${fold.call.summary}\n${back}`;
}

/** Builds and reuses fold messages, by fold id and everything their text depends on. */
export class FoldMessages {
  private readonly built = new Map<string, { key: string; message: AgentMessageLike }>();

  /** The message for `fold` in `messages` (built once per fold id and key). */
  message(fold: ActiveFold, messages: readonly AgentMessageLike[], map: TurnMap, root: string): AgentMessageLike {
    const key = `${map.turns[fold.first]!.ordinal}-${map.turns[fold.last]!.ordinal}:${fold.end - fold.start}:${fold.chars}:${fold.call.blobId ?? ""}:${root}:${fold.call.summary}`;
    const cached = this.built.get(fold.call.id);
    if (cached && cached.key === key) return cached.message;
    const timestamp = (messages[fold.start] as { timestamp?: unknown }).timestamp;
    const message: AgentMessageLike = {
      role: "custom",
      customType: FOLD_MESSAGE_TYPE,
      content: foldText(fold, map, root),
      display: false,
      details: { foldId: fold.call.id },
      ...(typeof timestamp === "number" ? { timestamp } : {}),
    };
    this.built.set(fold.call.id, { key, message });
    return message;
  }

  /** Drops messages of folds that are not active any more. */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.built.keys()) if (!ids.has(id)) this.built.delete(id);
  }
}

/** `messages` with each active fold's range replaced by its message (folds ascending, disjoint). */
export function applyFolds(
  messages: readonly AgentMessageLike[],
  folds: readonly ActiveFold[],
  message: (fold: ActiveFold) => AgentMessageLike,
): AgentMessageLike[] {
  const sorted = [...folds].sort((a, b) => a.start - b.start);
  const out: AgentMessageLike[] = [];
  let i = 0;
  for (const fold of sorted) {
    for (; i < fold.start; i++) out.push(messages[i]!);
    out.push(message(fold));
    i = fold.end;
  }
  for (; i < messages.length; i++) out.push(messages[i]!);
  return out;
}

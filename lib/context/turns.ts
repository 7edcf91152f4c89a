/**
 * What a "turn" is, for pruning and folding (both plugins read the history by turn and key a turn
 * the same way, so a step record and a fold nudge name the same user message).
 *
 * A turn is one user message and everything after it up to (not including) the next user message:
 * the assistant's replies, its tool calls and their results, custom messages, `!` command output.
 * Only `role: "user"` starts a turn. Messages before the first user message (a compaction summary,
 * injected context) belong to no turn and are always older than every turn.
 *
 * "Keep the last K turns" therefore keeps the current prompt's whole tool loop intact, plus the K-1
 * prompts before it, which is what the model is actively working with.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { fnv1a } from "./hash.ts";

/** Whether `message` starts a turn. */
export function startsTurn(message: AgentMessageLike): boolean {
  return message.role === "user";
}

/** Indexes of the messages that start a turn, oldest first. */
export function turnStarts(messages: readonly AgentMessageLike[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < messages.length; i++) if (startsTurn(messages[i]!)) starts.push(i);
  return starts;
}

/**
 * Index of the first message of the last `keep` turns (`keep` >= 1): everything before it may be
 * pruned. 0 when there are not more than `keep` turns (nothing is old enough).
 */
export function protectedFrom(starts: readonly number[], keep: number): number {
  const k = Math.max(1, keep);
  return starts.length > k ? starts[starts.length - k]! : 0;
}

/**
 * A stable key for a turn-starting user message: its timestamp and a hash of its text. Prune's step
 * records and fold's nudge records name turns by it, so both survive `/reload` and a fresh copy.
 */
export function turnKey(message: AgentMessageLike): string {
  const content = (message as { content?: unknown }).content;
  const text = typeof content === "string" ? content : JSON.stringify(content ?? "");
  return `u:${String((message as { timestamp?: unknown }).timestamp ?? "")}:${fnv1a(text)}`;
}

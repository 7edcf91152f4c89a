/**
 * The placeholder rules for one tool result of an old turn under the rules of a mode: keep it, or
 * replace it with a placeholder (by size, by tool, as a snippet; or, given a relation, as a duplicate
 * or a stale read). Pure and deterministic. The pruner never calls this directly: judge.ts
 * (`MessageJudge.decide`) is the one entry that orders every check for a message and calls these.
 *
 * Deliberate choices:
 * - Only `toolResult` messages are ever replaced. User messages carry intent; assistant messages
 *   carry plans and decisions, and their thinking blocks carry provider signatures that must come
 *   back byte-identical, so both are left alone. Tool calls therefore always keep their results:
 *   a pruned result keeps its `toolCallId`, `toolName` and `isError`, only its content changes.
 * - Images in a pruned tool result are dropped with the text; the placeholder counts them.
 * - Error results are pruned only when longer than maxToolChars: short errors tell the model what
 *   not to try again.
 * - A replacement is made only when it is shorter than the original, so pruning never grows a prompt.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import type { ModeRules } from "./config.ts";
import { type PlaceholderInput, placeholderText, relationPlaceholder } from "./placeholder.ts";
import { isPrunedMessage, markPruned } from "./pruned-mark.ts";
import type { ResultRelation } from "./relations.ts";
import { messageChars } from "./size.ts";

/** A tool call as the assistant made it: how placeholders learn the arguments. */
export interface CallInfo {
  name: string;
  args: Readonly<Record<string, unknown>>;
}

/**
 * What was decided for one message: keep it; send the user-pin marker view (`pin`); a placeholder
 * by the mode's rules (`placeholder`); a placeholder naming a later identical call (`duplicate`) or
 * the call that changed the file (`stale`); cut call arguments (`arguments`).
 */
export type DecisionKind = "keep" | "pin" | "placeholder" | "duplicate" | "stale" | "arguments";

/** The outcome for one message. */
export interface Decision {
  kind: DecisionKind;
  /** The message to send instead, or undefined to keep the original. */
  replacement: AgentMessageLike | undefined;
  /** Characters saved by the replacement (0 when kept). */
  savedChars: number;
  /** The placeholder text, for the pruning log. */
  summary?: string;
}

/** Keep the original. */
export const KEEP: Decision = Object.freeze({ kind: "keep", replacement: undefined, savedChars: 0 });

type ToolResultLike = { role: "toolResult"; toolCallId: string; toolName: string; content: unknown; details?: unknown; isError?: boolean };

/** Whether the result's meta marks it pinned (pinned on arrival; details JSON `pinned: true`). */
export function isPinnedInMessage(message: AgentMessageLike): boolean {
  return messageMeta(message).pinned === true;
}

/** Why a result is prunable under `rules`, or undefined when it is not. */
export function prunableReason(message: ToolResultLike, chars: number, rules: ModeRules, call: CallInfo | undefined): string | undefined {
  const tool = message.toolName;
  if (rules.neverPruneTools.has(tool)) return undefined;
  if (chars > rules.maxToolChars) return "size";
  if (message.isError) return undefined;
  if (rules.pruneTools.has(tool) || rules.pruneTools.has("*")) return "tool";
  if (rules.snippetTools.has(tool) && call?.args.output === "snippet") return "snippet";
  return undefined;
}

/** Decides one message under `rules`. Pins are checked by the caller, before this. */
export function decide(message: AgentMessageLike, rules: ModeRules, calls: ReadonlyMap<string, CallInfo>): Decision {
  const call = message.role === "toolResult" ? calls.get((message as ToolResultLike).toolCallId) : undefined;
  return replaceWith("placeholder", message, rules, call, (input, m) => (prunableReason(m, input.chars, rules, call) ? placeholderText(input) : undefined));
}

/**
 * The placeholder of a result that a later call superseded (a duplicate) or made wrong (a stale
 * read). Pins and protected paths are checked by the caller; kept when the placeholder is not shorter.
 */
export function relatedDecision(message: AgentMessageLike, relation: ResultRelation, rules: ModeRules, call: CallInfo | undefined): Decision {
  return replaceWith(relation.kind, message, rules, call, (input) => relationPlaceholder(input, relation));
}

/**
 * A tool result replaced by the text `write` makes from its placeholder input (undefined: keep).
 * Kept: other roles, results pinned on arrival, placeholders already, and any text not shorter.
 */
function replaceWith(
  kind: "placeholder" | "duplicate" | "stale",
  message: AgentMessageLike,
  rules: ModeRules,
  call: CallInfo | undefined,
  write: (input: PlaceholderInput, m: ToolResultLike) => string | undefined,
): Decision {
  if (message.role !== "toolResult" || isPinnedInMessage(message)) return KEEP;
  const m = message as ToolResultLike;
  const content = Array.isArray(m.content) ? (m.content as Array<{ type?: string; text?: string }>) : [];
  if (isPrunedMessage(message)) return KEEP; // already pruned (by its mark, never by text a tool printed)
  const chars = messageChars(message);
  const text = write(
    {
      toolName: m.toolName,
      args: call?.args,
      chars,
      images: content.filter((b) => b.type === "image").length,
      isError: m.isError === true,
      blobId: messageMeta(message).blob?.id,
      style: rules.placeholderStyle,
      hint: rules.placeholderHints[m.toolName],
    },
    m,
  );
  if (text === undefined || text.length >= chars) return KEEP;
  return { kind, replacement: markPruned({ ...m, content: [{ type: "text", text }] }), savedChars: chars - text.length, summary: text };
}

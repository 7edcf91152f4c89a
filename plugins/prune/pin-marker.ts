/**
 * How the model sees that a result is pinned: one short text line in front of the result's content.
 * Results pinned when they arrive (`pinTools`, and the `impactTools`) get it in the stored result itself;
 * results pinned later with the pin command get it in the outgoing context once the pruning boundary
 * passes them (that is the moment the pin makes a difference, and the prompt changes there anyway).
 */
import type { AgentMessageLike, ContentBlock } from "../../core/index.ts";

/** Marker text for results pinned on arrival. */
export const PIN_MARKER = "[pinned: kept in context when older tool output is pruned]";
/** Marker text for results the user pinned with the pin command. */
export const USER_PIN_MARKER = "[pinned by the user: kept in context when older tool output is pruned]";

/** Whether a content list already starts with a pin marker. */
export function hasPinMarker(content: readonly unknown[]): boolean {
  const first = content[0] as { type?: string; text?: string } | undefined;
  return first?.type === "text" && (first.text === PIN_MARKER || first.text === USER_PIN_MARKER);
}

/** `content` with the marker block in front (unchanged when a marker is there already). */
export function markContent(content: ContentBlock[], who: "arrival" | "user"): ContentBlock[] {
  if (hasPinMarker(content)) return content;
  return [{ type: "text", text: who === "user" ? USER_PIN_MARKER : PIN_MARKER }, ...content];
}

/** A copy of a tool result message with the marker in front of its content. */
export function withPinMarker(message: AgentMessageLike, who: "arrival" | "user"): AgentMessageLike {
  const content = Array.isArray(message.content) ? (message.content as ContentBlock[]) : [];
  return { ...message, content: markContent(content, who) };
}

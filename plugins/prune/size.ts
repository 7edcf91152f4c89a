/**
 * One size measure for everything the pruning code and its simulations compare: characters of what
 * the model reads, and tokens estimated as characters / 4. Used by the plugin (step decisions,
 * adaptive mode), the replay CLI and the bench, so every number they print is on the same scale.
 */
import type { AgentMessageLike } from "../../core/index.ts";

/** Characters per estimated token. */
export const CHARS_PER_TOKEN = 4;

/**
 * What one image counts as, in characters. Providers bill images by pixels (about 1,600 tokens for a
 * typical screenshot), not by their base64 length, so an image is a fixed 6,400 chars (1,600 tokens).
 */
export const IMAGE_CHARS = 6_400;

/** Estimated tokens for `chars` characters (rounded up). */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Characters of one content block of any message kind (text, image, thinking, tool call). */
export function blockChars(block: unknown): number {
  if (!block || typeof block !== "object") return 0;
  const b = block as { type?: string; text?: unknown; thinking?: unknown; name?: unknown; arguments?: unknown };
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text.length : 0;
    case "image":
      return IMAGE_CHARS;
    case "thinking":
      return typeof b.thinking === "string" ? b.thinking.length : 0;
    case "toolCall":
      return (typeof b.name === "string" ? b.name.length : 0) + JSON.stringify(b.arguments ?? {}).length;
    default:
      return 0;
  }
}

/** Characters of a content field: a plain string or a list of blocks. */
export function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) chars += blockChars(block);
  return chars;
}

/**
 * Characters of one message as the model reads it: its content plus the string fields pi turns into
 * text for the model (`summary` of compaction/branch summaries, `command`/`output` of `!` commands).
 */
export function messageChars(message: AgentMessageLike): number {
  const m = message as { content?: unknown; summary?: unknown; command?: unknown; output?: unknown };
  let chars = contentChars(m.content);
  if (typeof m.summary === "string") chars += m.summary.length;
  if (typeof m.command === "string") chars += m.command.length;
  if (typeof m.output === "string") chars += m.output.length;
  return chars;
}

/** Characters of a whole message list. */
export function messagesChars(messages: readonly AgentMessageLike[]): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m);
  return chars;
}

/**
 * One size measure for every stage that compares sizes: the budget (is an answer over its limit?),
 * the blobs shaper (is a result big enough to store?) and pruning (how much does dropping a result
 * save?). Two units, each defined once:
 * - bytes: UTF-8 bytes of text, base64 length of images; what a budget limit and a blob threshold
 *   count, and what a stored blob weighs on disk;
 * - characters and the token estimate derived from them (characters / {@link CHARS_PER_TOKEN},
 *   an image a fixed {@link IMAGE_CHARS}); what the model's context window counts.
 */
import type { AgentMessageLike, ContentBlock } from "../../core/index.ts";

/** Characters per estimated token: the usual rough rate for English text and code. */
export const CHARS_PER_TOKEN = 4;

/**
 * What one image counts as, in characters. Providers bill images by pixels (about 1,600 tokens for a
 * typical screenshot), not by their base64 length, so an image is a fixed 6,400 chars (1,600 tokens).
 */
export const IMAGE_CHARS = 6_400;

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Size in bytes of a content list: UTF-8 bytes of the text blocks plus the base64 length of images. */
export function contentBytes(content: readonly ContentBlock[]): number {
  let bytes = 0;
  for (const block of content) bytes += block.type === "text" ? utf8Bytes(block.text) : block.data.length;
  return bytes;
}

/** Estimated tokens for `chars` characters, rounded up (characters / {@link CHARS_PER_TOKEN}). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Characters of one content block of any message kind (text, image = {@link IMAGE_CHARS}, thinking, tool call). */
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
 * Not cached: callers that see the same message on every model call (pruning) cache it themselves.
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

/**
 * The content and message shapes the pipeline works on. They mirror pi-ai's types structurally so the
 * core can be unit-tested without pi; the pi adapter passes pi's objects straight through.
 */

/** A text block of a tool result or message. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** An image block (base64 data). Never cut or blob-stored as text. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
}

/** What a tool result carries back to the model. */
export type ContentBlock = TextBlock | ImageBlock;

/** Joins the text blocks of a content list; images count as a short marker. */
export function contentText(content: readonly ContentBlock[]): string {
  let out = "";
  for (const block of content) {
    if (block.type === "text") out += (out ? "\n" : "") + block.text;
  }
  return out;
}

/** A one-block text content list. */
export function textContent(text: string): ContentBlock[] {
  return [{ type: "text", text }];
}

/**
 * A message of the list sent to the model (pi's AgentMessage, structurally). Only the fields the
 * governance plugins read are typed; everything else passes through untouched.
 */
export type AgentMessageLike =
  | { role: "user"; content: string | ContentBlock[]; timestamp?: number; [k: string]: unknown }
  | { role: "assistant"; content: AssistantBlock[]; [k: string]: unknown }
  | {
      role: "toolResult";
      toolCallId: string;
      toolName: string;
      content: ContentBlock[];
      details?: unknown;
      isError: boolean;
      [k: string]: unknown;
    }
  | { role: string; content?: unknown; [k: string]: unknown };

/** Blocks of an assistant message. */
export type AssistantBlock =
  | TextBlock
  | { type: "thinking"; thinking: string; [k: string]: unknown }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; [k: string]: unknown };

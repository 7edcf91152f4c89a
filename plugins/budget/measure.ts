import { contentBytes, type ContentBlock } from "../../core/index.ts";

/** Size of an answer: UTF-8 bytes (images count their base64 length) and approximate tokens. */
export interface AnswerSize {
  bytes: number;
  /** Characters / 4, rounded up: the usual rough token count. */
  tokens: number;
}

/** Measures an answer's content. */
export function measure(content: readonly ContentBlock[]): AnswerSize {
  let chars = 0;
  for (const block of content) chars += block.type === "text" ? block.text.length : block.data.length;
  return { bytes: contentBytes(content), tokens: Math.ceil(chars / 4) };
}

/** A budget in both units. */
export interface Budget {
  maxBytes: number;
  maxTokens: number;
}

/** True when the answer is within both limits. */
export function fits(size: AnswerSize, budget: Budget): boolean {
  return size.bytes <= budget.maxBytes && size.tokens <= budget.maxTokens;
}

/**
 * The budget as one byte limit, for later stages that only count bytes (the blobs plugin reads it
 * from `details.budget.maxBytes`). Tokens are characters / 4 and a character is at least one byte,
 * so `4 * maxTokens` bytes never exceeds the token budget's reach.
 */
export function byteLimit(budget: Budget): number {
  return Math.min(budget.maxBytes, budget.maxTokens * 4);
}

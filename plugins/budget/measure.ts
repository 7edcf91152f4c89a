import type { ContentBlock } from "../../core/index.ts";
import { contentBytes, contentChars, estimateTokens } from "../../lib/size/index.ts";

/** Size of an answer in the core's one size measure (lib/size/index.ts). */
export interface AnswerSize {
  /** UTF-8 bytes of the text, base64 length of images. */
  bytes: number;
  /** Estimated tokens: characters / 4 rounded up, an image a fixed 1,600. */
  tokens: number;
}

/** Measures an answer's content. */
export function measure(content: readonly ContentBlock[]): AnswerSize {
  return { bytes: contentBytes(content), tokens: estimateTokens(contentChars(content)) };
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
 * from `meta.budget.maxBytes`). Tokens are characters / 4 and a character is at least one byte,
 * so `4 * maxTokens` bytes never exceeds the token budget's reach.
 */
export function byteLimit(budget: Budget): number {
  return Math.min(budget.maxBytes, budget.maxTokens * 4);
}

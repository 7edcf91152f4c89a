/** One size measure for content: UTF-8 bytes, characters and the token estimate, shared by budget and prune. */
import { describe, expect, it } from "vitest";
import { textContent, type ContentBlock } from "../../../../core/content.ts";
import { contentBytes, contentChars, estimateTokens, IMAGE_CHARS, messageChars, utf8Bytes } from "../../../../lib/size/index.ts";
import { measure } from "../../../../plugins/budget/measure.ts";
import { messageChars as pruneMessageChars, tokensOf } from "../../../../plugins/prune/size.ts";

describe("one size measure", () => {
  const content: ContentBlock[] = [...textContent("héllo"), { type: "image", data: "QUJD".repeat(1_000), mimeType: "image/png" }];

  it("counts UTF-8 bytes of text and the base64 length of images", () => {
    expect(utf8Bytes("héllo")).toBe(6);
    expect(contentBytes(content)).toBe(6 + 4_000);
  });

  it("estimates tokens as characters / 4 rounded up, an image a fixed 1,600 tokens whatever its base64 length", () => {
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(9)).toBe(3);
    expect(contentChars(content)).toBe(5 + IMAGE_CHARS);
    expect(estimateTokens(IMAGE_CHARS)).toBe(1_600);
  });

  it("budget and prune measure with it: the same content gets the same token estimate", () => {
    const m = { role: "toolResult", toolCallId: "c", toolName: "read", content, isError: false } as const;
    expect(measure(content)).toEqual({ bytes: contentBytes(content), tokens: estimateTokens(contentChars(content)) });
    expect(tokensOf(pruneMessageChars(m))).toBe(measure(content).tokens);
    expect(pruneMessageChars(m)).toBe(messageChars(m));
  });
});

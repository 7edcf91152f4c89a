import { describe, expect, it } from "vitest";
import { isNestedResult, resultPatch } from "../../../../host/pi/result-patch.ts";

const content = [{ type: "text" as const, text: "pi's 20 KB cut" }];
const details = { server: "big", tool: "big_structured" };
const structuredContent = { content: [{ type: "text", text: "the whole answer" }], structuredContent: { bytes: 16 } };

describe("resultPatch", () => {
  it("is undefined when the stages changed nothing", () => {
    expect(resultPatch({ content, details, isError: false, structuredContent }, { content, details, isError: false })).toBeUndefined();
  });

  it("changed details alone: only details, so pi keeps content and structuredContent", () => {
    const annotated = { ...details, blobId: "a".repeat(64) };
    expect(resultPatch({ content, details, isError: false, structuredContent }, { content, details: annotated, isError: false })).toEqual({
      details: annotated,
    });
  });

  it("changed content carries pi's structuredContent along unchanged", () => {
    const excerpt = [{ type: "text" as const, text: "excerpt" }];
    const patch = resultPatch({ content, details, isError: false, structuredContent }, { content: excerpt, details, isError: false });
    expect(patch).toEqual({ content: excerpt, structuredContent });
    expect(patch!.structuredContent).toBe(structuredContent);
  });

  it("changed content of a result without structuredContent (pi 0.x, built-ins) adds none", () => {
    const excerpt = [{ type: "text" as const, text: "excerpt" }];
    expect(resultPatch({ content, details, isError: false }, { content: excerpt, details, isError: false })).toEqual({ content: excerpt });
  });

  it("a flipped isError alone is only isError", () => {
    expect(resultPatch({ content, details, isError: false, structuredContent }, { content, details, isError: true })).toEqual({ isError: true });
  });

  it("details the stages dropped are not sent as a change (pi would keep its own anyway)", () => {
    expect(resultPatch({ content, details, isError: false }, { content, details: undefined, isError: false })).toBeUndefined();
  });
});

describe("isNestedResult", () => {
  it("is true only with a non-empty parentToolCallId", () => {
    expect(isNestedResult({ content, isError: false, parentToolCallId: "call_1" })).toBe(true);
    expect(isNestedResult({ content, isError: false, parentToolCallId: "" })).toBe(false);
    expect(isNestedResult({ content, isError: false })).toBe(false);
  });
});

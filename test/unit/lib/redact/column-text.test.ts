import { describe, expect, it } from "vitest";
import { builtinRedactor, columnText, MAX_COLUMN_CHARS, redactorForWrites } from "../../../../lib/redact/index.ts";

const TOKEN = ["ghp", "_", "C0lumnT3xt".repeat(3), "abcdef"].join("");

describe("columnText", () => {
  it("keeps a short text as it is", () => {
    expect(columnText("kota_search")).toBe("kota_search");
    expect(columnText("")).toBe("");
  });

  it("cuts a long text to the bound, naming the cut with a trailing …", () => {
    const out = columnText("n".repeat(65_540));
    expect(out).toHaveLength(MAX_COLUMN_CHARS);
    expect(out.endsWith("…")).toBe(true);
    expect(columnText("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("never splits a surrogate pair at the cut", () => {
    const out = columnText(`${"x".repeat(8)}🙂🙂🙂`, 10);
    expect(out).toBe(`${"x".repeat(8)}…`);
    expect(() => encodeURIComponent(out)).not.toThrow();
  });

  it("redacts with the built-in rules when no redactor is given", () => {
    expect(columnText(`call_${TOKEN}`)).toBe("call_[redacted:github-token]");
  });

  it("redacts before it cuts, so a secret across the cut is still found, and costs the same at any length", () => {
    expect(columnText(`${"x".repeat(100)} ${TOKEN}`, 128)).not.toContain("ghp_C0l");
    expect(columnText(`${TOKEN}_${"i".repeat(65_000)}`, 128)).toMatch(/^\[redacted:github-token\]/);
    let seen = 0;
    columnText("y".repeat(10_000_000), 128, {
      redact: (t) => {
        seen = t.length;
        return t;
      },
    });
    expect(seen).toBeLessThanOrEqual(8_192);
  });
});

describe("redactorForWrites", () => {
  it("is the session's redactor when there is one, else the built-in rules compiled once", () => {
    const session = { redact: (t: string) => t.toUpperCase() };
    expect(redactorForWrites(session)).toBe(session);
    expect(redactorForWrites()).toBe(builtinRedactor());
    expect(redactorForWrites(undefined).redact(`x ${TOKEN}`)).toBe("x [redacted:github-token]");
  });
});

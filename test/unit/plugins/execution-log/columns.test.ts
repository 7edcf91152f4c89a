import { describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";
import { columnText, MAX_COLUMN_CHARS } from "../../../../plugins/execution-log/columns.ts";

const TOKEN = ["ghp", "_", "C0lumnT3xt".repeat(3), "abcdef"].join("");
const redact = (text: string) => new Redactor().redact(text);

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

  it("redacts before it cuts, so a secret across the cut is still found, and costs the same at any length", () => {
    expect(columnText(`${"x".repeat(100)} ${TOKEN}`, 128, redact)).not.toContain("ghp_C0l");
    expect(columnText(`${TOKEN}_${"i".repeat(65_000)}`, 128, redact)).toMatch(/^\[redacted:github-token\]/);
    let seen = 0;
    columnText("y".repeat(10_000_000), 128, (t) => {
      seen = t.length;
      return t;
    });
    expect(seen).toBeLessThanOrEqual(8_192);
  });
});

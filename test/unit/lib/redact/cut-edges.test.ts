import { describe, expect, it } from "vitest";
import { cutEdgeSpans, Redactor } from "../../../../lib/redact/index.ts";

const r = new Redactor();
const TOKEN = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of the build`).join("\n");

/** What the model sees of `full` when pi keeps its last `keep` characters (bash), with pi's notice after it. */
const tailCut = (full: string, keep: number) => `${full.slice(full.length - keep)}\n\n[Showing last ${keep} bytes. Full output: /tmp/pi-bash-x.log]`;
/** What the model sees when pi keeps the first and last `keep` characters (pi 1.x's MCP client). */
const middleCut = (full: string, keep: number) =>
  `Warning: truncated output\n\n${full.slice(0, keep)}…${full.length - 2 * keep} chars truncated…${full.slice(full.length - keep)}\n\n[Full output: /tmp/x.txt]`;
const hide = (visible: string, full: string) => r.redactWithReport(visible, cutEdgeSpans(visible, { head: full, tail: full, whole: true }, r)).text;

describe("cutEdgeSpans", () => {
  it("hides the rest of a token the tail cut split", () => {
    const full = `${filler(50)}\ntoken: ${TOKEN}\n${filler(100)}`;
    const cutAt = full.indexOf(TOKEN) + 5;
    const visible = tailCut(full, full.length - cutAt);
    expect(visible.startsWith(TOKEN.slice(5))).toBe(true);
    expect(r.redact(visible)).toContain(TOKEN.slice(5));
    const out = hide(visible, full);
    expect(out).not.toContain(TOKEN.slice(5, 17));
    expect(out.startsWith("[redacted:github-token]\n")).toBe(true);
  });

  it("hides a value whose name the cut took away, and both halves of tokens split by a middle cut", () => {
    const full = `${filler(30)}\nDB_PASSWORD=hunter2hunter2X\n${filler(60)}`;
    const cutAt = full.indexOf("hunter2");
    expect(hide(tailCut(full, full.length - cutAt), full)).not.toContain("hunter2");
    const row = `xxxx tok ${TOKEN} `.padEnd(99, ".");
    const big = Array.from({ length: 30 }, () => row).join("\n");
    const keep = 1_000 + 20;
    const visible = middleCut(big, keep);
    const out = hide(visible, big);
    for (let i = 0; i + 8 <= TOKEN.length; i++) expect(out).not.toContain(TOKEN.slice(i, i + 8));
    expect(out).toContain("chars truncated");
  });

  it("finds nothing to map when the visible text holds no piece of the output", () => {
    expect(
      cutEdgeSpans("something else entirely, long enough to look at".repeat(3), { head: TOKEN.repeat(4), tail: TOKEN.repeat(4), whole: false }, r),
    ).toEqual([]);
  });
});

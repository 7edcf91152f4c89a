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

  it("hides the head edge of a short head cut by codemode (…N tokens truncated…), a key block's body too", () => {
    // codemode keeps a head and a tail of a few dozen tokens each, after its own header.
    const codemode = (full: string, head: number, tail: number) =>
      `Warning: truncated output (original token count: 129)\nTotal output lines: 1\n\n${full.slice(0, head)}…79 tokens truncated…${full.slice(full.length - tail)}\n\n[Full output: /tmp/pi-codemode-x.txt]`;
    const full = `${"x".repeat(60)} ${TOKEN} ${"y".repeat(200)} ${TOKEN} ${"z".repeat(69)}`;
    const visible = codemode(full, 100, 100);
    const spans = cutEdgeSpans(visible, { head: full, tail: full, whole: true }, r);
    const headAt = visible.indexOf(TOKEN.slice(0, 20));
    expect(spans.some((s) => s.start === headAt && s.end === headAt + 39)).toBe(true);
    const out = hide(visible, full);
    for (let i = 0; i + 8 <= TOKEN.length; i++) expect(out).not.toContain(TOKEN.slice(i, i + 8));
    // A private key's body: base64 lines with no anchor of their own before the marker.
    const body = Array.from({ length: 8 }, (_, i) => `${"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".slice(i)}${"Q".repeat(i)}`);
    const pem = `log\n-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----\n${"w".repeat(300)}`;
    const shown = codemode(pem, 150, 80);
    expect(shown).toContain(body[1]!.slice(0, 40));
    const hidden = hide(shown, pem);
    for (const line of body) expect(hidden).not.toContain(line.slice(0, 16));
  });

  it("finds nothing to map when the visible text holds no piece of the output", () => {
    expect(
      cutEdgeSpans("something else entirely, long enough to look at".repeat(3), { head: TOKEN.repeat(4), tail: TOKEN.repeat(4), whole: false }, r),
    ).toEqual([]);
  });
});

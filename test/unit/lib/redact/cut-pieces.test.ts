/**
 * A secret cut by a tool's own truncation marker is a secret: pi's `grep` cuts each line at 500
 * characters and writes `... [truncated]` after the piece it keeps, codemode's output cut writes
 * `…N tokens truncated…`, pi 1.x's MCP client `…N chars truncated…`. A piece of a token that ends right
 * at such a marker is recognised by its rule's anchor (a prefix, a key) and hidden whole, whatever the
 * tool and whether or not pi saved the whole output.
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";

const r = new Redactor();
const T = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
/** pi's grep: a line longer than 500 characters keeps its first 500 and `... [truncated]`. */
const grepLine = (line: string) => (line.length > 500 ? `${line.slice(0, 500)}... [truncated]` : line);
/** Every `n`-character piece of `secret`. */
const pieces = (secret: string, n: number) => Array.from({ length: secret.length - n + 1 }, (_, i) => secret.slice(i, i + n));

describe("a secret cut by a truncation marker", () => {
  it.each([1, 5, 20, 35])("grep's 500-character cut inside a GitHub token (%i characters cut away)", (cutAway) => {
    const line = `${"x".repeat(500 - (T.length - cutAway) - 5)} key=${T} tail`;
    const seen = `long.txt:1: ${grepLine(line)}`;
    expect(seen).toContain(`${T.slice(0, T.length - cutAway)}... [truncated]`);
    const out = r.redact(seen);
    for (const p of pieces(T.slice(0, T.length - cutAway), 8)) expect(out).not.toContain(p);
    expect(out).toContain("key=[redacted:github-token]... [truncated]");
  });

  it.each([
    ["fixed-length shape (Docker)", ["dckr", "pat", "AbCdEfGhIjKlMnOpQrStUvWxYz0"].join("_"), 10],
    ["fixed-length shape (Google API key)", `AIza${"SyAbCdEfGhIjKlMnOpQrStUvWxYz0123456".slice(0, 35)}`, 6],
    ["AWS access key id", "AKIAIOSFODNN7ABCDEFG", 4],
    ["OpenAI key", "sk-proj-AbCdEfGhIjKlMn0123456789abcd", 12],
    ["JWT cut in its payload", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.c2lnbmF0dXJl", 40],
  ])("%s", (_label, secret, cutAway) => {
    const kept = secret.slice(0, secret.length - cutAway);
    const out = r.redact(`src/a.ts:3: const v = "${kept}... [truncated]`);
    for (const p of pieces(kept.slice(4), 6)) expect(out).not.toContain(p);
    expect(out).toContain("[redacted:");
  });

  it("a value whose name is before it: NAME=value, a header, a JSON key", () => {
    for (const [line, value] of [
      ["export DB_PASSWORD=hunter2hunt", "hunter2hunt"],
      ["Authorization: Bearer abcdefghij0", "abcdefghij0"],
      ['{"API_KEY": "q8w7e6r5t4', "q8w7e6r5t4"],
    ] as const) {
      const out = r.redact(`${"x".repeat(40)} ${line}... [truncated]`);
      expect(out, line).not.toContain(value.slice(0, 6));
      expect(out).toContain("[truncated]");
    }
  });

  it("codemode's and the MCP client's head edge: …N tokens truncated…, …N chars truncated…", () => {
    const head = T.slice(0, 39);
    for (const marker of ["…79 tokens truncated…", "…20480 chars truncated…"]) {
      const out = r.redact(`Warning: truncated output\n\n${"x".repeat(60)} ${head}${marker}tail`);
      for (const p of pieces(head, 8)) expect(out).not.toContain(p);
      expect(out).toContain(marker);
    }
  });

  it("hides nothing that does not end at a marker, nor a word without a rule's anchor", () => {
    const plain = `${"x".repeat(30)} see the docs for more detail... [truncated]\nghp_short and more`;
    expect(r.redact(plain)).toBe(plain);
    const elided = "use a token like ghp_... in the docs";
    expect(r.redact(elided)).toBe(elided);
  });

  it("is idempotent: a placeholder before a marker is left as it is", () => {
    const once = r.redact(`key=${T.slice(0, 30)}... [truncated] and aws=AKIAIOSFODNN7ABC... [truncated]`);
    expect(r.redact(once)).toBe(once);
  });

  it("counts a cut token once", () => {
    expect(r.redactWithReport(`key=${T.slice(0, 30)}... [truncated]`).counts).toEqual({ "github-token": 1 });
  });
});

/**
 * Redaction properties over random text with planted secrets: the result is a fixed point (redacting
 * it again changes nothing and finds nothing), no planted secret survives, also JSON-escaped to any
 * depth, and redaction never creates a secret that was not in the input.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../lib/redact/index.ts";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const chars = (set: string, min: number, max: number) => fc.string({ unit: fc.constantFrom(...set.split("")), minLength: min, maxLength: max });
const digit = fc.constantFrom(..."0123456789".split(""));

/** Secrets of known shapes, each with the text that must not survive. */
const secret = fc.oneof(
  chars(ALNUM, 36, 40).map((s) => `ghp_${s}`),
  chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16)
    .filter((s) => !s.endsWith("EXAMPLE"))
    .map((s) => `AKIA${s}`),
  fc.tuple(chars(ALNUM, 30, 60), digit).map(([s, d]) => `sk-${s}${d}`),
  chars(ALNUM + "_-", 20, 40).map((s) => `glpat-${s}`),
  fc.tuple(chars(ALNUM, 10, 30), chars(ALNUM, 10, 30), chars(ALNUM, 10, 30)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  chars(ALNUM, 36, 36).map((s) => `npm_${s}`),
  fc.constantFrom("seCret-literal-0123", "an-env-value-42"),
);
/** Filler: words, punctuation, brackets and pieces of the placeholder syntax, to provoke overlaps. */
const filler = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    " ",
    "\n",
    "[redacted:",
    "]",
    "=",
    ":",
    "Bearer ",
    "Authorization: ",
    "TOKEN=",
    "_KEY=",
    "://u:",
    "@",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----END RSA PRIVATE KEY-----",
    "ghp_",
    "sk-",
    "eyJ",
    ".",
  ),
);
const separator = fc.constantFrom(" ", "\n", ", ", "; ", "\t", " (", ") ");

const text = fc.array(
  fc.oneof({ arbitrary: filler, weight: 3 }, { arbitrary: fc.tuple(separator, secret, separator).map(([a, s, b]) => ({ a, s, b })), weight: 1 }),
  { maxLength: 40 },
);

const redactor = new Redactor({ literals: ["seCret-literal-0123", "an-env-value-42"] });

describe("redaction properties", () => {
  it("is idempotent and leaves nothing to find", () => {
    fc.assert(
      fc.property(text, (parts) => {
        const input = parts.map((p) => (typeof p === "string" ? p : `${p.a}${p.s}${p.b}`)).join("");
        const once = redactor.redact(input);
        const again = redactor.redactWithReport(once);
        expect(again.text).toBe(once);
        expect(again.counts).toEqual({});
      }),
      { numRuns: 400 },
    );
  });

  it("hides every planted secret", () => {
    fc.assert(
      fc.property(text, (parts) => {
        const input = parts.map((p) => (typeof p === "string" ? p : `${p.a}${p.s}${p.b}`)).join("");
        const out = redactor.redact(input);
        for (const p of parts) if (typeof p !== "string") expect(out.includes(p.s), `${p.s} survived`).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("hides every planted secret at any depth of JSON escaping, and the output still parses at every depth", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 6 }), (parts, depth) => {
        let input = parts.map((p) => (typeof p === "string" ? p : `${p.a}${p.s}${p.b}`)).join("");
        for (let i = 0; i < depth; i++) input = JSON.stringify({ out: input });
        let out = redactor.redact(input);
        for (let i = 0; i < depth; i++) out = (JSON.parse(out) as { out: string }).out;
        for (const p of parts) if (typeof p !== "string") expect(out.includes(p.s), `${p.s} survived at depth ${depth}`).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("never increases secrets: what the output still matches was in the input", () => {
    fc.assert(
      fc.property(text, (parts) => {
        const input = parts.map((p) => (typeof p === "string" ? p : `${p.a}${p.s}${p.b}`)).join("");
        const found = (t: string) => Object.values(new Redactor().redactWithReport(t).counts).reduce((a, b) => a + b, 0);
        expect(found(redactor.redact(input))).toBeLessThanOrEqual(found(input));
        expect(found(redactor.redact(input))).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});

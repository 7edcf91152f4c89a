import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyError } from "pi-governor";

/**
 * The classifier's text patterns must not fire on ordinary messages that merely contain a risky word
 * ("error at line 401", "quota of 5 files reached"). Messages here are random sentences of neutral
 * words, numbers and those keywords; none names a failure in the anchored form the classifier
 * accepts ("HTTP 401", "status 429", "Request timed out"), so each should stay `unknown`.
 */
const NEUTRAL = [
  "the",
  "a",
  "of",
  "at",
  "in",
  "for",
  "file",
  "files",
  "line",
  "column",
  "value",
  "option",
  "user",
  "config",
  "parsed",
  "found",
  "expected",
  "missing",
  "name",
  "was",
  "is",
  "not",
  "and",
  "with",
  "field",
  "entry",
  "module",
  "report",
  "count",
  "set",
  "to",
];
const RISKY = [
  "401",
  "403",
  "429",
  "timeout",
  "timed",
  "out",
  "quota",
  "EOF",
  "rate",
  "limit",
  "auth",
  "authentication",
  "unauthorized",
  "forbidden",
  "connection",
  "invalid",
  "parameter",
  "reached",
  "error",
  "network",
  "socket",
  "exceeded",
  "requests",
  "ETIMEDOUT",
  "must",
  "be",
];

const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NEUTRAL) },
  { weight: 2, arbitrary: fc.constantFrom(...RISKY) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 100_000 }).map(String) },
);
/** A sentence with at least one risky keyword somewhere inside it (not as the first word). */
const sentence = fc
  .tuple(fc.constantFrom(...NEUTRAL), fc.array(word, { minLength: 1, maxLength: 10 }), fc.constantFrom(...RISKY), fc.array(word, { maxLength: 6 }))
  .map(([first, before, risky, after]) => [first, ...before, risky, ...after].join(" "));

/** Share of messages the classifier puts in any category but `unknown`. */
function falsePositiveRate(messages: string[]): { rate: number; examples: string[] } {
  const wrong = messages.filter((m) => classifyError(new Error(m)).category !== "unknown");
  return { rate: wrong.length / messages.length, examples: wrong.slice(0, 5) };
}

describe("classifyError on neutral messages", () => {
  it("classifies fewer than 1% of random sentences with risky keywords as anything but unknown", () => {
    const messages = fc.sample(sentence, { numRuns: 5000, seed: 4242 });
    const { rate, examples } = falsePositiveRate(messages);
    expect(rate, `false positives, e.g. ${JSON.stringify(examples)}`).toBeLessThan(0.01);
  });

  it("never turns a message without a status, code or protocol phrase into a retried or breaker-counted category", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...NEUTRAL, "401", "403", "429", "quota", "EOF", "timeout", "limit"), { minLength: 1, maxLength: 12 }), (words) => {
        const category = classifyError(new Error(`${words.join(" ")} in config`)).category;
        expect(["unknown"]).toContain(category);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});

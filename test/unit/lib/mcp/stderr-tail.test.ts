import { describe, expect, it } from "vitest";
import { StderrTail } from "../../../../lib/mcp/stderr-tail.ts";
import { Redactor } from "../../../../lib/redact/index.ts";

const TOKEN = ["ghp", "_", "TailTest".repeat(4), "Qq11"].join("");

describe("StderrTail with a redactor", () => {
  it("hides secrets in the tail, also one split across chunks", () => {
    const tail = new StderrTail(4096, (t) => new Redactor({ literals: ["env-secret-42"] }).redact(t));
    tail.append(`starting\nusing ${TOKEN.slice(0, 10)}`);
    tail.append(`${TOKEN.slice(10)} and env-secret-42\n`);
    expect(tail.tail()).toBe("starting\nusing [redacted:github-token] and [redacted:env-value]");
  });

  it("without one keeps the text as it is", () => {
    const tail = new StderrTail();
    tail.append(`using ${TOKEN}`);
    expect(tail.tail()).toBe(`using ${TOKEN}`);
  });
});

import { describe, expect, it } from "vitest";
import { BUILTIN_RULES, Redactor } from "../../../../lib/redact/index.ts";
import { allExcept, RunMemo } from "../../../../lib/redact/value-scan.ts";

const header = BUILTIN_RULES.find((r) => r.name === "authorization-header")!;

/** Runs the header rule over `text` as the redactor does (a refused key is passed over by one character) and returns the memo. */
function scan(text: string): { memo: RunMemo; found: number } {
  const memo = new RunMemo(text, header.value!.chars);
  const re = new RegExp(header.source, "g");
  let found = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const end = header.value!.match(text, m.index + m[0].length, memo);
    if (end < 0) re.lastIndex = m.index + 1;
    else {
      found++;
      re.lastIndex = end;
    }
  }
  return { memo, found };
}

describe("value scanning without rescanning", () => {
  it("the Authorization header's value is checked by code that remembers runs", () => {
    expect(header.value).toBeDefined();
  });

  // A flood of keys with no space between is one long run of value characters: every key in it
  // used to scan the run again (4,096 characters each, seconds per MB).
  for (const [what, unit] of [
    ["authorization: flood", "authorization:"],
    ["Authorization=Bearer%20 flood", "Authorization=Bearer%20"],
    ["proxy-authorization: flood", "Proxy-Authorization:"],
  ] as const)
    it(`looks at each character about once on an ${what}`, () => {
      for (const size of [16_384, 262_144]) {
        const text = unit.repeat(Math.ceil(size / unit.length));
        const { memo } = scan(text);
        expect(memo.scanned, `${what} at ${size}`).toBeLessThanOrEqual(2 * text.length);
      }
    });

  it("finds the same credentials a plain scan would, inside and after a flood", () => {
    const token = "abc123DEF456ghi789";
    const text = `${"authorization:".repeat(500)} Authorization: Bearer ${token}\nauthorization:${token}\n`;
    const out = new Redactor().redact(text);
    expect(out).not.toContain(token);
    expect(out.endsWith(`Authorization: Bearer [redacted:authorization-header]\nauthorization:[redacted:authorization-header]\n`)).toBe(true);
  });

  it("remembers the run end and the next digit, also for a key that ends a little before the remembered run", () => {
    const text = "aaaa1bbbbbbb cccc";
    const memo = new RunMemo(text, allExcept(""));
    expect(memo.runEndFrom(2)).toBe(12);
    expect(memo.runEndFrom(5)).toBe(12);
    expect(memo.runEndFrom(0)).toBe(12);
    expect(memo.digitFromUntil(0, 12)).toBe(4);
    expect(memo.digitFromUntil(5, 12)).toBe(12);
    expect(memo.runEndFrom(13)).toBe(17);
  });
});

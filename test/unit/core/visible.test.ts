import { describe, expect, it } from "vitest";
import { formatProblems, visible, visibleLines } from "../../../core/index.ts";

const OSC52 = "\u001b]52;c;aGVsbG8=\u0007";
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

describe("visible", () => {
  it("shows every control character as an escape: C0, DEL, C1 (CSI U+009B), bidi overrides, line separators", () => {
    expect(visible(`a${OSC52}b`)).toBe("a\\u001b]52;c;aGVsbG8=\\u0007b");
    expect(visible("x\u009b31mred\u007f")).toBe("x\\u009b31mred\\u007f");
    expect(visible("file\u202eexe.txt")).toBe("file\\u202eexe.txt");
    expect(visible("one\ntwo\tthree\rfour\u2028")).toBe("one\\ntwo\\tthree\\rfour\\u2028");
  });

  it("leaves other text alone: accents, CJK, emoji, quotes and backslashes", () => {
    const text = 'Grüße 日本語 🚀 "q" \\n';
    expect(visible(text)).toBe(text);
  });

  it("visibleLines keeps newlines and tabs but shows a carriage return (no line overwrites another)", () => {
    expect(visibleLines(`line 1\n\tline 2${OSC52}\rfake`)).toBe("line 1\n\tline 2\\u001b]52;c;aGVsbG8=\\u0007\\rfake");
  });

  it("keeps JSON valid: C1 and bidi characters become JSON escapes", () => {
    const json = JSON.stringify({ s: `x\u009by\u202ez${OSC52}` });
    const shown = visibleLines(json);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(shown)).toEqual({ s: `x\u009by\u202ez${OSC52}` });
  });
});

describe("config problems (startup notice, /governor status, doctor)", () => {
  it("show a key's escape sequence and newline as text, one line per problem", () => {
    const lines = formatProblems([{ source: "/r/.pi/pi-governor.json", path: `prune.${OSC52}x\nFAKE: all good`, message: "unknown key" }]);
    expect(lines).toEqual(["/r/.pi/pi-governor.json: prune.\\u001b]52;c;aGVsbG8=\\u0007x\\nFAKE: all good: unknown key"]);
  });
});

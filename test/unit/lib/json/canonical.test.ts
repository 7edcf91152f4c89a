/** canonicalJson: one spelling for equal values, JSON's rules for odd values, no form for bigint or deep nesting. */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../../lib/json/canonical.ts";

describe("canonicalJson", () => {
  it("sorts object keys at every level, so two spellings of the same arguments compare equal", () => {
    const a = canonicalJson({ path: "a.ts", opts: { limit: 5, offset: 1 }, list: [{ y: 1, x: 2 }] });
    const b = canonicalJson({ list: [{ x: 2, y: 1 }], opts: { offset: 1, limit: 5 }, path: "a.ts" });
    expect(a).toBe('{"list":[{"x":2,"y":1}],"opts":{"limit":5,"offset":1},"path":"a.ts"}');
    expect(b).toBe(a);
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("writes odd values as JSON does: non-finite numbers and undefined in arrays as null, undefined keys left out", () => {
    expect(canonicalJson([Number.NaN, Number.POSITIVE_INFINITY, undefined, () => 1, -0, 1.5])).toBe("[null,null,null,null,0,1.5]");
    expect(canonicalJson({ a: undefined, b: () => 1, c: Symbol("s"), d: null })).toBe('{"d":null}');
    expect(canonicalJson('quote"and\u0000nul')).toBe(JSON.stringify('quote"and\u0000nul'));
    expect([canonicalJson(true), canonicalJson(false), canonicalJson(null)]).toEqual(["true", "false", "null"]);
  });

  it("has no form for a bigint anywhere, or for nesting deeper than 64", () => {
    expect(canonicalJson(1n)).toBeUndefined();
    expect(canonicalJson({ a: [1, { b: 2n }] })).toBeUndefined();
    const nest = (depth: number) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    expect(canonicalJson(nest(64))).toBe(`${"[".repeat(64)}1${"]".repeat(64)}`);
    expect(canonicalJson(nest(65))).toBeUndefined();
    expect(canonicalJson(nest(100_000))).toBeUndefined(); // a hostile depth ends at the cap, no stack overflow
  });
});

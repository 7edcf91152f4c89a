/** Tool-name globs: `*` any run, `?` one character, everything else literal (no regex meaning), linear on hostile globs. */
import { describe, expect, it } from "vitest";
import { globMatcher, globMatches } from "../../../../plugins/chaos/glob.ts";

describe("globMatches", () => {
  it("matches the whole name: * any run (also empty), ? exactly one character", () => {
    expect(globMatches("kota_*", "kota_search")).toBe(true);
    expect(globMatches("kota_*", "kota_")).toBe(true);
    expect(globMatches("kota_*", "xkota_search")).toBe(false);
    expect(globMatches("everything_?cho", "everything_echo")).toBe(true);
    expect(globMatches("everything_?cho", "everything_cho")).toBe(false);
    expect(globMatches("*_search", "kota_search")).toBe(true);
    expect(globMatches("a*b*c", "aXXbYYc")).toBe(true);
    expect(globMatches("a*b*c", "aXXbYY")).toBe(false);
    expect(globMatches("**", "")).toBe(true);
    expect(globMatches("?", "")).toBe(false);
  });

  it("goes back to the last star on a mismatch", () => {
    expect(globMatches("*ab", "aab")).toBe(true);
    expect(globMatches("*aab*", "abaabx")).toBe(true);
    expect(globMatches("a*ab", "aabab")).toBe(true);
  });

  it("treats regex characters literally", () => {
    expect(globMatches("a.c*", "abc")).toBe(false);
    expect(globMatches("a.c*", "a.cd")).toBe(true);
    expect(globMatches("(x|y)+", "(x|y)+")).toBe(true);
  });

  it("answers a glob that is exponential as a backtracking regex, on a long name", () => {
    const name = "a".repeat(50_000);
    expect(globMatches("*a*a*a*a*a*b", name)).toBe(false);
    expect(globMatches("*a*a*a*a*a*a", name)).toBe(true);
  });
});

describe("globMatcher", () => {
  it("* matches everything, a plain name only itself, a glob by globMatches", () => {
    expect(globMatcher("*")("anything at all")).toBe(true);
    const plain = globMatcher("kota_search");
    expect([plain("kota_search"), plain("kota_searchx"), plain("KOTA_SEARCH")]).toEqual([true, false, false]);
    const g = globMatcher("kota_?ep*");
    expect([g("kota_deps"), g("kota_dep"), g("kota_eps")]).toEqual([true, true, false]);
  });
});

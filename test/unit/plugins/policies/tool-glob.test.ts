import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globsIntersect, toolGlobMatches } from "../../../../plugins/policies/tool-glob.ts";

/** The reference: the same glob as an anchored regex (`*` = `.*`). */
const viaRegex = (glob: string, name: string) =>
  new RegExp(
    `^${glob
      .split("*")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  ).test(name);

describe("toolGlobMatches", () => {
  it("matches whole names, * as any run", () => {
    expect(toolGlobMatches("*", "bash")).toBe(true);
    expect(toolGlobMatches("kota_*", "kota_search")).toBe(true);
    expect(toolGlobMatches("kota_*", "xkota_search")).toBe(false);
    expect(toolGlobMatches("mcp__*__delete_*", "mcp__github__delete_repo")).toBe(true);
    expect(toolGlobMatches("mcp__*__delete_*", "mcp__github__create_repo")).toBe(false);
    expect(toolGlobMatches("read", "read_file")).toBe(false);
    expect(toolGlobMatches("*_file", "read_file")).toBe(true);
    expect(toolGlobMatches("a*b*c", "abc")).toBe(true);
  });

  it("agrees with the regex reading of the glob on random names and patterns", () => {
    const alpha = fc.constantFrom("a", "b", "_", "*");
    fc.assert(
      fc.property(fc.string({ unit: alpha, maxLength: 12 }), fc.string({ unit: fc.constantFrom("a", "b", "_"), maxLength: 20 }), (glob, name) => {
        expect(toolGlobMatches(glob, name)).toBe(viaRegex(glob, name));
      }),
      { numRuns: 2000 },
    );
  });

  it("answers a crafted pattern against a long name (backtracking stays bounded)", () => {
    const glob = `${"*a".repeat(60)}*b`;
    expect(toolGlobMatches(glob, "a".repeat(64))).toBe(false);
    expect(toolGlobMatches(glob, `${"a".repeat(63)}b`)).toBe(true);
  });
});

describe("globsIntersect", () => {
  /** Every string over {a, b} up to `max` characters. */
  const strings = (max: number): string[] => {
    const out = [""];
    for (let i = 0; i < out.length && out[i]!.length < max; i++) out.push(`${out[i]}a`, `${out[i]}b`);
    return out;
  };
  const all = strings(8);

  it("finds a name both globs match exactly when one exists (checked against every short name)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "*"), maxLength: 4 }),
        fc.string({ unit: fc.constantFrom("a", "b", "*"), maxLength: 4 }),
        (a, b) => {
          // A shortest common name has at most as many characters as the two globs' letters.
          const witness = all.some((n) => toolGlobMatches(a, n) && toolGlobMatches(b, n));
          expect(globsIntersect(a, b)).toBe(witness);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("answers the load check's questions", () => {
    expect(globsIntersect("mcp__acme__ehco*", "mcp__acme__*")).toBe(true);
    expect(globsIntersect("mcp__acmee__*", "mcp__acme__*")).toBe(false);
    expect(globsIntersect("*__delete_*", "mcp__acme__*")).toBe(true);
    expect(globsIntersect(`${"*a".repeat(64)}`, `${"*b".repeat(64)}`)).toBe(false);
  });
});

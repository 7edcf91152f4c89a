import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globCouldStartWith, toolGlobMatches } from "../../../../plugins/policies/tool-glob.ts";

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

describe("globCouldStartWith", () => {
  /** Every string over {a, b} up to `max` characters. */
  const strings = (max: number): string[] => {
    const out = [""];
    for (let i = 0; i < out.length && out[i]!.length < max; i++) out.push(`${out[i]}a`, `${out[i]}b`);
    return out;
  };
  const all = strings(9);

  it("says whether the glob matches some name with the prefix (checked against every short name)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "*"), maxLength: 5 }),
        fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 4 }),
        (glob, prefix) => {
          // A shortest witness is the prefix followed by at most the glob's letters.
          const witness = all.some((n) => n.startsWith(prefix) && toolGlobMatches(glob, n));
          expect(globCouldStartWith(glob, prefix)).toBe(witness);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("answers the load check's questions", () => {
    expect(globCouldStartWith("mcp__acme__ehco*", "mcp__acme__")).toBe(true);
    expect(globCouldStartWith("mcp__acmee__*", "mcp__acme__")).toBe(false);
    expect(globCouldStartWith("*__delete_*", "mcp__acme__")).toBe(true);
    expect(globCouldStartWith("acme_echo", "acme_")).toBe(true);
    expect(globCouldStartWith("mcp__ac*", "mcp__acme__")).toBe(true);
  });
});

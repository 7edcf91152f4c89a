import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionedFiles, pathTokens } from "../../../../plugins/auto-context/paths.ts";
import { BRIEFING_LIMITS, renderBriefing } from "../../../../plugins/auto-context/briefing.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ac-paths-"));
  for (const f of ["src/a.ts", "src/b.tsx", "src/dir.ts/inner.ts", "lib/c.js", "d.json"]) {
    mkdirSync(join(root, f, ".."), { recursive: true });
    writeFileSync(join(root, f), "x");
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("autoContext path detection", () => {
  it("finds repo-relative code paths with punctuation around them", () => {
    expect(mentionedFiles("what breaks if I change src/a.ts? also `src/b.tsx`, and (lib/c.js).", root)).toEqual(["src/a.ts", "src/b.tsx", "lib/c.js"]);
    expect(mentionedFiles("look at ./src/a.ts and src/a.ts again", root)).toEqual(["src/a.ts"]);
    expect(mentionedFiles("check d.json.", root)).toEqual(["d.json"]);
  });

  it("ignores URLs, absolute paths, .., directories, missing files and prose", () => {
    expect(mentionedFiles("see https://example.com/src/a.ts and http://x.io/lib/c.js", root)).toEqual([]);
    expect(mentionedFiles(`open ${join(root, "src/a.ts")} or ~/src/a.ts or C:\\src\\a.ts`, root)).toEqual([]);
    expect(mentionedFiles("compare ../src/a.ts and src/../src/a.ts", root)).toEqual([]);
    expect(mentionedFiles("the folder src/dir.ts is a directory", root)).toEqual([]);
    expect(mentionedFiles("src/missing.ts, e.g. v1.2, foo.bar and README.md", root)).toEqual([]);
    expect(pathTokens("src/missing.ts e.g. foo.bar")).toEqual(["src/missing.ts"]);
  });
});

describe("autoContext briefing", () => {
  const facts = {
    files: ["src/a.ts"],
    dependentCounts: new Map([["src/a.ts", 40]]),
    dependencies: Array.from({ length: 30 }, (_, i) => `src/dep/very/long/path/number-${i}.ts`),
    dependents: Array.from({ length: 40 }, (_, i) => `src/dependent/very/long/path/number-${i}.ts`),
    tests: Array.from({ length: 12 }, (_, i) => `tests/t${i}.test.ts`),
    stale: false,
  };

  it("lists top 5 dependencies, top 10 dependents, top 5 tests and how to dig deeper", () => {
    const text = renderBriefing(facts, 8_000);
    expect(text.split("\n")).toHaveLength(5);
    expect(text).toMatch(new RegExp(`Key dependencies: .*number-${BRIEFING_LIMITS.dependencies - 1}\\.ts \\(\\+25 more\\)`));
    expect(text).toMatch(/Top dependents: .*number-9\.ts \(\+30 more\)/);
    expect(text).toMatch(/Suggested tests: .*t4\.test\.ts \(\+7 more\)/);
    expect(text).toMatch(/^Dig deeper: kota_deps/m);
  });

  it("stays under the byte cap by shrinking lists first", () => {
    for (const cap of [200, 400, 700, 1500]) {
      const text = renderBriefing(facts, cap);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap);
    }
    expect(renderBriefing(facts, 700)).toMatch(/Dig deeper/);
  });
});

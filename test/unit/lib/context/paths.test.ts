import { describe, expect, it } from "vitest";
import { pruneSchema } from "../../../../plugins/prune/config.ts";
import {
  callPath,
  MAX_MATCHED_PATH_CHARS,
  MAX_PATTERN_TOTAL_CHARS,
  normalizePath,
  pathGlobMatches,
  protectedPathMatcher,
} from "../../../../lib/context/index.ts";

describe("callPath", () => {
  it("reads path, file_path or filePath, in that order, and ignores empty or non-string values", () => {
    expect(callPath({ path: "a.ts", file_path: "b.ts" })).toBe("a.ts");
    expect(callPath({ file_path: "b.ts" })).toBe("b.ts");
    expect(callPath({ filePath: "c.ts" })).toBe("c.ts");
    expect(callPath({ path: "", file_path: 3, filePath: "c.ts" })).toBe("c.ts");
    expect(callPath({ command: "cat a" })).toBeUndefined();
    expect(callPath(undefined)).toBeUndefined();
  });
});

describe("normalizePath", () => {
  it("gives one spelling per file", () => {
    expect(normalizePath("./src/a.ts")).toBe("src/a.ts");
    expect(normalizePath("././src//lib///a.ts")).toBe("src/lib/a.ts");
    expect(normalizePath("@src/a.ts")).toBe("src/a.ts");
    expect(normalizePath("src\\lib\\a.ts")).toBe("src/lib/a.ts");
    expect(normalizePath("src/lib/")).toBe("src/lib");
    expect(normalizePath(" src/a.ts ")).toBe("src/a.ts");
    expect(normalizePath("/")).toBe("/");
  });

  it("makes paths under cwd relative, and leaves others absolute", () => {
    expect(normalizePath("/home/u/p/src/a.ts", "/home/u/p")).toBe("src/a.ts");
    expect(normalizePath("/home/u/p/src/a.ts", "/home/u/p/")).toBe("src/a.ts");
    expect(normalizePath("C:\\work\\p\\src\\a.ts", "C:\\work\\p")).toBe("src/a.ts");
    expect(normalizePath("/home/u/px/a.ts", "/home/u/p")).toBe("/home/u/px/a.ts");
    expect(normalizePath("/etc/hosts", "/home/u/p")).toBe("/etc/hosts");
  });
});

describe("pathGlobMatches", () => {
  it("`*` matches any characters but '/', `?` exactly one", () => {
    expect(pathGlobMatches("src/*.ts", "src/a.ts")).toBe(true);
    expect(pathGlobMatches("src/*.ts", "src/.ts")).toBe(true);
    expect(pathGlobMatches("src/*.ts", "src/lib/a.ts")).toBe(false);
    expect(pathGlobMatches("src/*.ts", "src/a.tsx")).toBe(false);
    expect(pathGlobMatches("src/?.ts", "src/a.ts")).toBe(true);
    expect(pathGlobMatches("src/?.ts", "src/ab.ts")).toBe(false);
    expect(pathGlobMatches("src?a.ts", "src/a.ts")).toBe(false);
    expect(pathGlobMatches("*", "")).toBe(true);
    expect(pathGlobMatches("a", "")).toBe(false);
  });

  it("`**` matches any folders, none included, and `**/` only whole folders", () => {
    expect(pathGlobMatches("**/*.pem", "k.pem")).toBe(true);
    expect(pathGlobMatches("**/*.pem", "a/b/c/k.pem")).toBe(true);
    expect(pathGlobMatches("secrets/**", "secrets/a/b.txt")).toBe(true);
    expect(pathGlobMatches("secrets/**", "secrets")).toBe(false);
    expect(pathGlobMatches("secrets/**", "other/secrets/a")).toBe(false);
    expect(pathGlobMatches("a/**/b.ts", "a/b.ts")).toBe(true);
    expect(pathGlobMatches("a/**/b.ts", "a/x/y/b.ts")).toBe(true);
    expect(pathGlobMatches("a/**/b.ts", "a/xb.ts")).toBe(false);
    expect(pathGlobMatches("a**b", "a/x/b")).toBe(true);
  });

  it("accepts a leading ./ in the pattern", () => {
    expect(pathGlobMatches("./src/*.ts", "src/a.ts")).toBe(true);
  });

  it("runs a crafted pattern against 100k characters in bounded steps", () => {
    const path = "a".repeat(100_000);
    expect(pathGlobMatches("*a*a*a*a*b", path)).toBe(false);
    expect(pathGlobMatches("**a**a**a**a**b", `${"a/".repeat(50_000)}b`)).toBe(true);
    expect(pathGlobMatches("*a*a*a*a*b", `${path}b`)).toBe(true);
  });
});

describe("protectedPathMatcher", () => {
  it("matches a pattern without '/' against the file name in any folder", () => {
    const isProtected = protectedPathMatcher(["*.lock", "AGENTS.md"]);
    expect(isProtected("yarn.lock")).toBe(true);
    expect(isProtected("packages/x/yarn.lock")).toBe(true);
    expect(isProtected("docs/AGENTS.md")).toBe(true);
    expect(isProtected("AGENTS.md.bak")).toBe(false);
    expect(isProtected("lock/file.ts")).toBe(false);
  });

  it("matches a pattern with '/' against the path relative to cwd, whatever its spelling", () => {
    const isProtected = protectedPathMatcher(["secrets/**", "config/*.json"], "/home/u/p");
    expect(isProtected("/home/u/p/secrets/k.pem")).toBe(true);
    expect(isProtected("./secrets/deep/k.pem")).toBe(true);
    expect(isProtected("@config/app.json")).toBe(true);
    expect(isProtected("config/sub/app.json")).toBe(false);
    expect(isProtected("/elsewhere/secrets/k.pem")).toBe(false);
    expect(isProtected("src/secrets/k.pem")).toBe(false);
  });

  it("protects nothing without patterns", () => {
    expect(protectedPathMatcher([])("anything")).toBe(false);
  });
});

describe("protectedFilePatterns: bounded matching work (globs come from project files)", () => {
  /** A worst case for the matcher: many stars, a path pattern (with "/"), 200 characters. */
  const glob200 = `src/${"*a".repeat(97)}*b`.slice(0, 200);

  it("the config refuses more than 64 patterns, a pattern over 200 characters, or over 2,000 characters in all", () => {
    const schema = pruneSchema.shape.protectedFilePatterns;
    expect(schema.safeParse(Array.from({ length: 64 }, (_, i) => `f${i}`)).success).toBe(true);
    expect(schema.safeParse(Array.from({ length: 65 }, (_, i) => `f${i}`)).success).toBe(false);
    expect(schema.safeParse(["x".repeat(201)]).success).toBe(false);
    expect(schema.safeParse(Array.from({ length: 10 }, () => "x".repeat(200))).success).toBe(true);
    expect(schema.safeParse(Array.from({ length: 11 }, () => "x".repeat(200))).success).toBe(false);
    expect(MAX_PATTERN_TOTAL_CHARS).toBe(2_000);
  });

  it("a path longer than PATH_MAX (a name longer than NAME_MAX) is never matched, at no matching cost", () => {
    const work = { cells: 0 };
    const isProtected = protectedPathMatcher(["src/**", "*"], "/p", work);
    expect(isProtected(`src/${"a".repeat(MAX_MATCHED_PATH_CHARS)}`)).toBe(false);
    expect(isProtected(`x/${"a".repeat(20_000)}`)).toBe(false);
    expect(work.cells).toBe(0);
    expect(isProtected(`src/${"a".repeat(300)}`)).toBe(true); // "src/**" matches; "*" (a name pattern) skips a name over 255
    expect(isProtected(`lib/${"a".repeat(300)}`)).toBe(false);
    expect(isProtected("src/a.ts")).toBe(true);
  });

  it("each path is matched once: a later request asks again at no cost", () => {
    const work = { cells: 0 };
    const isProtected = protectedPathMatcher(
      Array.from({ length: 10 }, () => glob200),
      "/p",
      work,
    );
    const path = `src/${"a".repeat(4_000)}`;
    expect(isProtected(path)).toBe(false);
    const first = work.cells;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(MAX_PATTERN_TOTAL_CHARS * (MAX_MATCHED_PATH_CHARS + 1));
    for (let i = 0; i < 100; i++) isProtected(path);
    expect(work.cells).toBe(first);
  });

  it("patterns passed in code beyond the total are not used (the first ones that fit are)", () => {
    const isProtected = protectedPathMatcher([...Array.from({ length: 10 }, () => "y".repeat(200)), "secret.txt"]);
    expect(isProtected("secret.txt")).toBe(false);
    expect(protectedPathMatcher(["secret.txt", ...Array.from({ length: 10 }, () => "y".repeat(200))])("secret.txt")).toBe(true);
  });
});

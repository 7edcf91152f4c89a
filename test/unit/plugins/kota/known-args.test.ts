import { describe, expect, it } from "vitest";
import { closeNames, unknownArgumentsText } from "../../../../plugins/kota/known-args.ts";
import { depsParams, impactParams, searchParams } from "../../../../plugins/kota/params.ts";

describe("unknownArgumentsText", () => {
  it("accepts every declared argument, nested ones included", () => {
    expect(
      unknownArgumentsText("kota_impact", impactParams, { change_type: "fix", description: "d", files_to_modify: ["a.ts"], breaking_changes: false }),
    ).toBeUndefined();
    expect(unknownArgumentsText("kota_search", searchParams, { query: "q", filters: { glob: "src/**", exported_only: true } })).toBeUndefined();
  });

  it("names an unknown argument, the valid ones, and the likely ones for a prefix (`files`)", () => {
    const text = unknownArgumentsText("kota_impact", impactParams, { change_type: "fix", description: "d", files: ["a.ts"] });
    expect(text).toBe(
      'kota_impact: unknown argument "files" (valid: change_type, description, files_to_modify, files_to_create, files_to_delete, breaking_changes); did you mean files_to_modify, files_to_create or files_to_delete?',
    );
  });

  it("suggests the close spelling, inside nested objects too", () => {
    expect(unknownArgumentsText("kota_deps", depsParams, { file_path: "a.ts", dept: 2 })).toMatch(/unknown argument "dept" .*did you mean depth\?/);
    expect(unknownArgumentsText("kota_search", searchParams, { query: "q", filters: { globs: "src/**" } })).toMatch(
      /unknown argument "filters\.globs" \(valid in filters: glob, exclude, language, symbol_kind, exported_only\); did you mean glob\?/,
    );
  });

  it("says a tool takes no arguments", () => {
    expect(unknownArgumentsText("kota_status", { type: "object", properties: {} } as never, { verbose: true })).toBe(
      'kota_status: unknown argument "verbose" (it takes no arguments).',
    );
  });

  it("hostile names: control characters escaped, long names cut, many names counted, prototype keys refused", () => {
    const escaped = unknownArgumentsText("kota_deps", depsParams, { file_path: "a", "\u001b[2Jx": 1 })!;
    expect(escaped).toContain('"\\u001b[2Jx"');
    expect(escaped).not.toContain("\u001b");
    const long = unknownArgumentsText("kota_deps", depsParams, { file_path: "a", ["d".repeat(1_000_000)]: 1 })!;
    expect(long.length).toBeLessThan(400);
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x${i}`, i]));
    const text = unknownArgumentsText("kota_deps", depsParams, { file_path: "a", ...many })!;
    expect(text).toMatch(/and 45 more unknown argument\(s\)\.$/);
    expect(unknownArgumentsText("kota_deps", depsParams, JSON.parse('{"file_path":"a","__proto__":{"x":1},"constructor":1}'))).toMatch(
      /unknown argument "__proto__".*unknown argument "constructor"/,
    );
  });
});

describe("closeNames", () => {
  it("finds misspellings and prefixes, not unrelated names", () => {
    expect(closeNames("symbl", ["symbol", "file", "include_tests"])).toEqual(["symbol"]);
    expect(closeNames("include_test", ["symbol", "file", "include_tests"])).toEqual(["include_tests"]);
    expect(closeNames("query", ["symbol", "file"])).toEqual([]);
  });
});

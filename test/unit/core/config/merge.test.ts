/** Config merging: plain objects merge key by key, the rest is replaced, and keys from untrusted files never reach a prototype. */
import { describe, expect, it } from "vitest";
import { deepMerge, isPlainObject, withoutUnsafeKeys } from "../../../../core/config/merge.ts";

describe("deepMerge", () => {
  it("merges plain objects at every depth, replaces arrays and values, keeps the base for undefined", () => {
    const base = { prune: { keepRecentTurns: 2, tools: ["read", "bash"], perTool: { read: { argOrder: ["path"] } } }, other: 1 };
    const merged = deepMerge(base, { prune: { tools: ["grep"], perTool: { bash: { argOrder: ["command"] } }, keepRecentTurns: undefined } });
    expect(merged).toEqual({
      prune: { keepRecentTurns: 2, tools: ["grep"], perTool: { read: { argOrder: ["path"] }, bash: { argOrder: ["command"] } } },
      other: 1,
    });
    expect(deepMerge(base, undefined)).toBe(base);
    expect(deepMerge({ a: 1 }, 5)).toBe(5);
    expect(deepMerge([1, 2], [3])).toEqual([3]);
  });

  it("modifies neither input", () => {
    const base = { a: { b: 1 } };
    const override = { a: { c: 2 } };
    const merged = deepMerge(base, override);
    expect(merged).toEqual({ a: { b: 1, c: 2 } });
    expect(base).toEqual({ a: { b: 1 } });
    expect(override).toEqual({ a: { c: 2 } });
    expect(merged.a).not.toBe(base.a);
  });

  it("never lets a parsed config file reach the prototype", () => {
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"nested":{"__proto__":{"polluted":true},"ok":1}}');
    const merged = deepMerge({ nested: { keep: 1 } } as Record<string, unknown>, hostile);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(merged.nested)).toBe(Object.prototype);
    expect(merged).toEqual({ nested: { keep: 1, ok: 1 } });
    expect(Object.keys(merged)).toEqual(["nested"]);
  });
});

describe("withoutUnsafeKeys", () => {
  it("drops __proto__, constructor and prototype keys at any depth, in arrays too", () => {
    const hostile = JSON.parse('{"a":[{"__proto__":{"x":1},"b":2}],"prototype":1,"c":{"constructor":3,"d":4}}');
    const clean = withoutUnsafeKeys(hostile);
    expect(clean).toEqual({ a: [{ b: 2 }], c: { d: 4 } });
    expect(Object.hasOwn(clean.a[0], "__proto__")).toBe(false);
    expect(withoutUnsafeKeys("text")).toBe("text");
  });
});

describe("isPlainObject", () => {
  it("is true only for {}-style objects", () => {
    expect([isPlainObject({}), isPlainObject(Object.create(null)), isPlainObject(JSON.parse('{"a":1}'))]).toEqual([true, true, true]);
    expect([isPlainObject([]), isPlainObject(null), isPlainObject(new Date()), isPlainObject(new Map()), isPlainObject("s")]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

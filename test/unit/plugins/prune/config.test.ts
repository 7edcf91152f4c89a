/**
 * The `prune` config section: its bounds, the `perModel` keys, the adaptive gap rule (top level
 * refused, thresholds in force always keep a gap), the renamed fold keys and the rules of each mode.
 */
import { describe, expect, it } from "vitest";
import { formatProblems, resolveConfig } from "pi-governor/host";
import { MAX_PATTERN_TOTAL_CHARS } from "../../../../lib/context/index.ts";
import { fold } from "../../../../plugins/fold/index.ts";
import {
  adaptiveGapProblem,
  adaptiveThresholds,
  MODEL_KEY_PATTERN,
  perModelEntrySchema,
  pruneCrossCheck,
  pruneDefaults,
  pruneSchema,
  rulesFor,
} from "../../../../plugins/prune/config.ts";
import { prune } from "../../../../plugins/prune/index.ts";

const layer = (data: Record<string, unknown>) => ({ kind: "project" as const, source: "/repo/.pi/pi-governor.json", data });
const resolvePrune = (data: Record<string, unknown>) => {
  const r = resolveConfig([prune(), fold()], [layer(data)]);
  return { values: r.values, problems: formatProblems(r.problems) };
};

describe("the prune schema", () => {
  it("accepts its own defaults, and they pass the cross-field check", () => {
    expect(pruneSchema.safeParse(pruneDefaults).success).toBe(true);
    expect(pruneCrossCheck(pruneDefaults)).toEqual([]);
  });

  it("bounds every number: out-of-range and fractional turn counts are refused", () => {
    for (const bad of [
      { keepRecentTurns: 0 },
      { keepRecentTurns: 101 },
      { keepRecentTurns: 1.5 },
      { maxToolChars: -1 },
      { maxToolChars: 10_000_001 },
      { argExcerptChars: 19 },
      { minStepPercent: 51 },
    ]) {
      expect(pruneSchema.safeParse({ ...pruneDefaults, ...bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("bounds protectedFilePatterns by count, length and total characters", () => {
    const ok = (patterns: string[]) => pruneSchema.safeParse({ ...pruneDefaults, protectedFilePatterns: patterns }).success;
    expect(ok(["**/*.lock", ".env*"])).toBe(true);
    expect(ok(["x".repeat(201)])).toBe(false);
    expect(ok(Array.from({ length: 65 }, (_, i) => `f${i}`))).toBe(false);
    const perPattern = 199;
    const within = Array.from({ length: Math.floor(MAX_PATTERN_TOTAL_CHARS / perPattern) }, () => "y".repeat(perPattern));
    expect(ok(within)).toBe(true);
    expect(ok([...within, "z".repeat(perPattern)])).toBe(false);
  });
});

describe("perModel keys and entries", () => {
  it("a key is provider/model-id (the id may hold '/'), provider/* or *; anything else is refused", () => {
    for (const key of ["*", "anthropic/*", "anthropic/claude-sonnet-4", "openrouter/meta/llama-3"]) expect(MODEL_KEY_PATTERN.test(key), key).toBe(true);
    for (const key of ["", "anthropic", "*/x", "a/b*", "a b/c", "/x", "a/"]) expect(MODEL_KEY_PATTERN.test(key), key).toBe(false);
  });

  it("an entry overrides only the listed keys, strictly, with the same bounds", () => {
    expect(perModelEntrySchema.safeParse({ enabled: false, keepRecentTurns: 3 }).success).toBe(true);
    expect(perModelEntrySchema.safeParse({ pruneTools: ["read"] }).success).toBe(false); // not overridable per model
    expect(perModelEntrySchema.safeParse({ keepRecentTurn: 3 }).success).toBe(false); // a typo is not ignored
    expect(perModelEntrySchema.safeParse({ keepRecentTurns: 0 }).success).toBe(false);
  });

  it("a bad model key in a config file is reported, the entry is not applied", () => {
    const { values, problems } = resolvePrune({ prune: { perModel: { "no-slash": { keepRecentTurns: 3 } } } });
    expect(problems.join("\n")).toContain("prune.perModel");
    expect((values.get("prune") as unknown as { perModel: Record<string, unknown> }).perModel).not.toHaveProperty("no-slash");
  });
});

describe("the adaptive gap", () => {
  it("adaptiveGapProblem is silent when exit is below enter and names both keys and the fix otherwise", () => {
    expect(adaptiveGapProblem(25, 15)).toBeUndefined();
    expect(adaptiveGapProblem(25, 24.9)).toBeUndefined();
    for (const exit of [25, 40]) {
      const problem = adaptiveGapProblem(25, exit);
      expect(problem).toContain(`adaptiveExitPercent ${exit} must be below adaptiveEnterPercent 25`);
      expect(problem).toContain("lower adaptiveExitPercent or raise adaptiveEnterPercent");
    }
  });

  it("the top-level check reports a missing gap against both keys", () => {
    expect(pruneCrossCheck({ ...pruneDefaults, adaptiveEnterPercent: 30, adaptiveExitPercent: 30 })).toEqual([
      { keys: ["adaptiveExitPercent", "adaptiveEnterPercent"], message: adaptiveGapProblem(30, 30) },
    ]);
  });

  it("a config file without the gap is refused with that message", () => {
    const { problems } = resolvePrune({ prune: { adaptiveEnterPercent: 20, adaptiveExitPercent: 50 } });
    expect(problems.join("\n")).toContain("adaptiveExitPercent 50 must be below adaptiveEnterPercent 20");
  });

  it("the thresholds in force keep exit at most 90% of enter, whatever was combined", () => {
    expect(adaptiveThresholds({ adaptiveEnterPercent: 25, adaptiveExitPercent: 15 })).toEqual({ enter: 25, exit: 15 });
    expect(adaptiveThresholds({ adaptiveEnterPercent: 40, adaptiveExitPercent: 60 })).toEqual({ enter: 40, exit: 36 });
    expect(adaptiveThresholds({ adaptiveEnterPercent: 10, adaptiveExitPercent: 10 })).toEqual({ enter: 10, exit: 9 });
    const { enter, exit } = adaptiveThresholds({ adaptiveEnterPercent: 1, adaptiveExitPercent: 1000 });
    expect(exit).toBeLessThan(enter);
  });
});

describe("renamed keys", () => {
  it("prune.fold and prune.foldNudgePercent land in the fold section with a note, not as unknown prune keys", () => {
    const { values, problems } = resolvePrune({ prune: { fold: false, foldNudgePercent: 33 } });
    expect(values.get("fold")).toMatchObject({ enabled: false, nudgePercent: 33 });
    expect(values.get("prune")).not.toHaveProperty("fold");
    expect(values.get("prune")).not.toHaveProperty("foldNudgePercent");
    expect(problems.join("\n")).toContain("prune.fold: renamed; use fold.enabled");
    expect(problems.join("\n")).toContain("prune.foldNudgePercent: renamed; use fold.nudgePercent");
    expect(problems.join("\n")).not.toMatch(/unknown/i);
  });
});

describe("rules per mode", () => {
  it("tight mode never loosens: fewer turns, a tighter cut, adaptive tools added, short placeholders", () => {
    const options = { ...pruneDefaults, keepRecentTurns: 3, adaptiveKeepRecentTurns: 5, maxToolChars: 500, adaptiveMaxToolChars: 800 };
    const normal = rulesFor(options, "normal");
    const tight = rulesFor(options, "tight");
    expect([normal.keepRecentTurns, normal.maxToolChars, normal.placeholderStyle]).toEqual([3, 500, "full"]);
    expect([tight.keepRecentTurns, tight.maxToolChars, tight.placeholderStyle]).toEqual([3, 500, "short"]);
    expect(rulesFor({ ...pruneDefaults }, "tight")).toMatchObject({ keepRecentTurns: 1, maxToolChars: 800 });
    expect([...normal.pruneTools]).toEqual(["read", "bash"]);
    expect([...tight.pruneTools]).toEqual(["read", "bash", "*"]);
  });
});

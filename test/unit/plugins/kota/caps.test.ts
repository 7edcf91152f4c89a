import { describe, expect, it } from "vitest";
import { Value } from "typebox/value";
import { KOTA_BUDGET_TOOLS } from "../../../../presets/kota/budget-policy.ts";
import { clampArg, type IntArgCap, KOTA_ARG_CAPS } from "../../../../plugins/kota/caps.ts";
import { depsParams, searchParams, taskContextParams } from "../../../../plugins/kota/params.ts";
import { clampArgs } from "../../../../plugins/budget/index.ts";

const schemas = { kota_search: searchParams, kota_deps: depsParams, kota_task_context: taskContextParams } as const;
const required: Record<string, Record<string, unknown>> = {
  kota_search: { query: "q" },
  kota_deps: { file_path: "a.ts" },
  kota_task_context: { files: ["a.ts"] },
};
const entries = Object.entries(KOTA_ARG_CAPS).flatMap(([tool, args]) =>
  Object.entries(args as Record<string, IntArgCap>).map(([arg, cap]) => ({ tool: tool as keyof typeof schemas, arg, cap })),
);

describe("kota argument caps: one table for schema, clamp and budget", () => {
  it("covers every capped argument the tools take", () => {
    expect(entries.map((e) => `${e.tool}.${e.arg}`)).toEqual([
      "kota_search.limit",
      "kota_search.context_lines",
      "kota_deps.depth",
      "kota_task_context.max_impacted_files",
    ]);
  });

  for (const { tool, arg, cap } of entries) {
    it(`${tool}.${arg}: the schema, the clamp and the budget agree on default ${cap.default} and max ${cap.max}`, () => {
      const schema = (schemas[tool].properties as unknown as Record<string, { maximum: number; minimum: number; description: string }>)[arg]!;
      expect(schema.maximum).toBe(cap.max);
      expect(schema.minimum).toBe(cap.acceptFrom ?? cap.min);
      expect(schema.description).toContain(`Default ${cap.default}`);
      // pi's validation: max passes, max + 1 fails.
      expect(Value.Check(schemas[tool], { ...required[tool], [arg]: cap.max })).toBe(true);
      expect(Value.Check(schemas[tool], { ...required[tool], [arg]: cap.max + 1 })).toBe(false);
      // The clamp: absent -> default, above -> max, below -> min.
      expect(clampArg(tool, arg as never, undefined)).toBe(cap.default);
      expect(clampArg(tool, arg as never, cap.max + 100)).toBe(cap.max);
      expect(clampArg(tool, arg as never, cap.min - 1)).toBe(cap.min);
      // The budget's hard cap for the same argument.
      expect(KOTA_BUDGET_TOOLS[tool]!.caps![arg]).toBe(cap.max);
      expect(clampArgs({ [arg]: cap.max + 1 }, KOTA_BUDGET_TOOLS[tool]!.caps!).args[arg]).toBe(cap.max);
    });
  }

  it("the budget caps nothing the table does not, and every ladder rung stays within the caps", () => {
    for (const [tool, budget] of Object.entries(KOTA_BUDGET_TOOLS)) {
      const table = (KOTA_ARG_CAPS as Record<string, Record<string, IntArgCap>>)[tool] ?? {};
      expect(Object.keys(budget.caps ?? {})).toEqual(Object.keys(table));
      for (const rung of budget.ladder ?? []) {
        for (const [arg, value] of Object.entries(rung)) if (typeof value === "number" && table[arg]) expect(value).toBeLessThanOrEqual(table[arg].max);
      }
    }
  });
});

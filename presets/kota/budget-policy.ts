/**
 * Output budgets of the kota_* tools, for the budget plugin: `budget({ perTool: KOTA_BUDGET_TOOLS })`.
 * Hard caps come from the kota tools' caps table (plugins/kota/caps.ts), the same table their
 * schemas and clamps come from. kota_search downshifts context_lines 1 -> limit 10 -> the largest
 * limit that fits -> output "paths", measuring each answer (a KotaDB snippet answer can be larger
 * than a full one). kota_search gets its
 * own 5,000-byte budget: a snippet search for a common word answers 6-13 KB on a 45-file repository,
 * far more than a navigation answer needs (graph answers are 0.3-2.5 KB).
 */
import type { ToolBudget } from "../../plugins/budget/index.ts";
import { budgetCaps } from "../../plugins/kota/index.ts";

/** Caps (from the table), downshift ladder and hint, by kota tool name. */
export const KOTA_BUDGET_TOOLS: Readonly<Record<string, ToolBudget>> = Object.freeze<Record<string, ToolBudget>>({
  kota_search: {
    caps: budgetCaps("kota_search"),
    maxBytes: 5_000,
    ladder: [{ context_lines: 1 }, { limit: 10 }, { output: "paths" }],
    fitArg: "limit",
    hint: 'narrow the query or scope, or page with a lower limit; output "snippet" with context_lines 1 shows code around each hit; the user can raise "budget.perTool.kota_search.maxBytes" (default 5000)',
  },
  kota_deps: {
    caps: budgetCaps("kota_deps"),
    ladder: [{ depth: 1 }, { include_tests: false }],
    hint: 'ask for one direction ("dependents" or "dependencies") at a time, or follow single files with depth 1',
  },
  kota_usages: {
    ladder: [{ include_tests: false }],
    hint: "pass `file` to look at one file's usages",
  },
  kota_task_context: {
    caps: budgetCaps("kota_task_context"),
    ladder: [{ include_symbols: false }, { max_impacted_files: 10 }],
    hint: "pass fewer files, or a lower max_impacted_files",
  },
});

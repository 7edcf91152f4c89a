import { z } from "zod";

/** Upper bound of an output budget, in UTF-8 bytes (16 MiB); in tokens it is a quarter of this. */
const MAX_BUDGET_BYTES = 16 * 1024 * 1024;

/** One argument value a ladder rung may set. */
const argValue = z.union([z.string(), z.number().min(-1_000_000_000).max(1_000_000_000), z.boolean()]);

/** Budget, caps and downshift ladder of one tool. */
export const toolBudgetSchema = z
  .object({
    maxBytes: z.number().int().min(256).max(MAX_BUDGET_BYTES).optional().describe("Output budget of this tool in UTF-8 bytes (default: budget.maxBytes)"),
    maxTokens: z.number().int().min(64).max(MAX_BUDGET_BYTES / 4).optional().describe("Output budget in approximate tokens, characters / 4 (default: budget.maxTokens)"),
    caps: z.record(z.string(), z.number().max(1_000_000_000)).optional().describe("Hard caps on numeric arguments: larger values are clamped and the model is told"),
    ladder: z
      .array(z.record(z.string(), argValue))
      .optional()
      .describe("Cheaper requests to try in order when an answer is over budget; each rung patches the previous rung's arguments (numbers only ever lower a value)"),
    hint: z.string().optional().describe("How the model can ask for more, appended to the downshift note"),
  })
  .strict();

/** Options of the budget plugin (config key `budget`). */
export const budgetSchema = z.object({
  maxBytes: z.number().int().min(256).max(MAX_BUDGET_BYTES).describe("Default output budget per governed tool call, in UTF-8 bytes. Default 24000"),
  maxTokens: z.number().int().min(64).max(MAX_BUDGET_BYTES / 4).describe("Default output budget in approximate tokens (characters / 4). Default 6000"),
  tools: z.record(z.string(), toolBudgetSchema).describe("Per-tool budgets, argument caps and downshift ladders, by tool name"),
});

/** The budget plugin's options. */
export type BudgetConfig = z.infer<typeof budgetSchema>;
/** Budget, caps and ladder of one tool. */
export type ToolBudget = z.infer<typeof toolBudgetSchema>;

/** Defaults: the one place they live. Tool entries come from presets (see {@link KOTA_BUDGET_TOOLS}). */
export const BUDGET_DEFAULTS: BudgetConfig = {
  maxBytes: 24_000,
  maxTokens: 6_000,
  tools: {},
};

/**
 * Budgets for the kota tools, for the kota preset:
 * `budget({ tools: KOTA_BUDGET_TOOLS })`. Hard caps: kota_search `limit <= 50`,
 * `context_lines <= 5`; kota_deps `depth <= 3`. kota_search downshifts context_lines 1 -> limit 10 ->
 * output "paths", measuring each answer (a KotaDB snippet answer can be larger than a full one).
 * kota_search gets its own 5,000-byte budget: a snippet search for a common word answers 6-13 KB on
 * a 45-file repository, far more than a navigation answer needs (graph answers are 0.3-2.5 KB).
 */
export const KOTA_BUDGET_TOOLS: Readonly<Record<string, ToolBudget>> = Object.freeze<Record<string, ToolBudget>>({
  kota_search: {
    caps: { limit: 50, context_lines: 5 },
    maxBytes: 5_000,
    ladder: [{ context_lines: 1 }, { limit: 10 }, { output: "paths" }],
    hint: 'narrow the query or scope, or page with a lower limit; output "snippet" with context_lines 1 shows code around each hit; the user can raise "budget.tools.kota_search.maxBytes" (default 5000)',
  },
  kota_deps: {
    caps: { depth: 3 },
    ladder: [{ depth: 1 }, { include_tests: false }],
    hint: 'ask for one direction ("dependents" or "dependencies") at a time, or follow single files with depth 1',
  },
  kota_usages: {
    ladder: [{ include_tests: false }],
    hint: "pass `file` to look at one file's usages",
  },
  kota_task_context: {
    caps: { max_impacted_files: 50 },
    ladder: [{ include_symbols: false }, { max_impacted_files: 10 }],
    hint: "pass fewer files, or a lower max_impacted_files",
  },
});

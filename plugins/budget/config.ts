import { z } from "zod";
import { boundedRecord, MAX_TEXT_CHARS, MAX_TOOL_NAME_CHARS, textSchema, toolNameSchema } from "../../lib/config/index.ts";

/** Upper bound of an output budget, in UTF-8 bytes (16 MiB); in tokens it is a quarter of this. */
const MAX_BUDGET_BYTES = 16 * 1024 * 1024;

/** One argument value a ladder rung may set. */
const argValue = z.union([z.string().max(MAX_TEXT_CHARS), z.number().min(-1_000_000_000).max(1_000_000_000), z.boolean()]);

/** Budget, caps and downshift ladder of one tool. */
export const toolBudgetSchema = z
  .object({
    maxBytes: z.number().int().min(256).max(MAX_BUDGET_BYTES).optional().describe("Output budget of this tool in UTF-8 bytes (default: budget.maxBytes)"),
    maxTokens: z
      .number()
      .int()
      .min(64)
      .max(MAX_BUDGET_BYTES / 4)
      .optional()
      .describe("Output budget in approximate tokens, characters / 4 (default: budget.maxTokens)"),
    caps: boundedRecord(z.string().min(1).max(MAX_TOOL_NAME_CHARS), z.number().max(1_000_000_000), 64)
      .optional()
      .describe("Hard caps on numeric arguments: larger values are clamped and the model is told"),
    ladder: z
      .array(boundedRecord(z.string().min(1).max(MAX_TOOL_NAME_CHARS), argValue, 64))
      .max(32)
      .optional()
      .describe(
        "Cheaper requests to try in order when an answer is over budget; each rung patches the previous rung's arguments (numbers only ever lower a value)",
      ),
    fitArg: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        "A numeric result-count argument (e.g. limit): before a rung that changes the answer's form, and after the last rung, the largest value whose answer fits is looked for (at most 4 requests), so the answer keeps as many whole results as fit",
      ),
    hint: textSchema().optional().describe("How the model can ask for more, added to the downshift note when no cheaper answer fit"),
  })
  .strict();

/** Options of the budget plugin (config key `budget`). */
export const budgetSchema = z.object({
  maxBytes: z.number().int().min(256).max(MAX_BUDGET_BYTES).describe("Default output budget per governed tool call, in UTF-8 bytes. Default 24000"),
  maxTokens: z
    .number()
    .int()
    .min(64)
    .max(MAX_BUDGET_BYTES / 4)
    .describe("Default output budget in approximate tokens (characters / 4). Default 6000"),
  perTool: boundedRecord(toolNameSchema(), toolBudgetSchema).describe(
    "Per-tool budgets, argument caps and downshift ladders, by tool name (formerly `tools`). Default {}",
  ),
});

/** The budget plugin's options. */
export type BudgetOptions = z.infer<typeof budgetSchema>;
/** Budget, caps and ladder of one tool. */
export type ToolBudget = z.infer<typeof toolBudgetSchema>;

/** Defaults: the one place they live. Tool entries come from presets (the kota preset: presets/kota/budget-policy.ts). */
export const budgetDefaults: BudgetOptions = {
  maxBytes: 24_000,
  maxTokens: 6_000,
  perTool: {},
};

/** Old spellings of budget keys, still read from config files (with a "renamed" problem). */
export const budgetRenamedKeys = { tools: { to: "perTool" } } as const;

/**
 * `governor:budget` (config key `budget`): a per-tool output budget with hard argument caps and a
 * measured downshift ladder. Wraps each governed call at `STAGE.BUDGET` (inside one attempt).
 */
import { definePlugin, STAGE } from "../../core/index.ts";
import { budgetDefaults, budgetRenamedKeys, budgetSchema } from "./config.ts";
import { budgetWrapper } from "./downshift.ts";

export { budgetDefaults, budgetSchema, toolBudgetSchema, type BudgetOptions, type ToolBudget } from "./config.ts";
export { applyRung, clampArgs, type Clamp } from "./args.ts";
export { fits, measure, type AnswerSize, type Budget } from "./measure.ts";

/** Plugin name, as taps, logs and errors show it. */
export const BUDGET_PLUGIN = "governor:budget";

/** The budget plugin factory: `budget()` or `budget({ perTool: { my_tool: { maxBytes: 8000 } } })`. */
export const budget = definePlugin({
  name: BUDGET_PLUGIN,
  configKey: "budget",
  description: "Per-tool output budgets: clamps capped arguments and re-issues oversized requests cheaper, measuring each answer",
  schema: budgetSchema,
  defaults: budgetDefaults,
  renamedKeys: budgetRenamedKeys,
  apply(pipeline, config) {
    pipeline.hooks.toolCall.tap({ name: BUDGET_PLUGIN, stage: STAGE.BUDGET }, budgetWrapper(config));
  },
});

/**
 * `governor:budget` (config key `budget`): a per-tool output budget with hard argument caps and a
 * measured downshift ladder. Wraps each governed call at `TOOL_STAGE.BUDGET` (inside one attempt).
 */
import { definePlugin, RESULT_STAGE, TOOL_STAGE } from "../../core/index.ts";
import { BLOB_STORE } from "../blobs/index.ts";
import { budgetDefaults, budgetRenamedKeys, budgetSchema } from "./config.ts";
import { awaitFullAnswers, budgetWrapper } from "./downshift.ts";

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
  // A ladder re-issues a call with arguments the config chooses (strings as given) after the gate let
  // the first request through, and caps bound what the model may ask for: the user's choice alone.
  trustedKeys: ["perTool"],
  // The first, full answer of a downshifted call is kept in the blob cache when the blobs plugin runs.
  optional: [BLOB_STORE],
  apply(pipeline, config, services) {
    const store = services.maybe(BLOB_STORE);
    const pending = new Map<string, Promise<void>>();
    pipeline.hooks.toolCall.tap(
      { name: BUDGET_PLUGIN, stage: TOOL_STAGE.BUDGET },
      budgetWrapper(config, { ...(store ? { store } : {}), logger: services.logger, pending }),
    );
    // A result that names a stored full answer reaches the model only once it is on disk (writes are
    // few and small: every one in flight is awaited). FORMAT - 5 leaves FORMAT to a team's formatters.
    if (store) {
      pipeline.hooks.toolResult.tap({ name: BUDGET_PLUGIN, stage: RESULT_STAGE.FORMAT - 5 }, async () => {
        await awaitFullAnswers(pending);
        return undefined;
      });
    }
  },
});

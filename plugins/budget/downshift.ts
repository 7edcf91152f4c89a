import { REHYDRATION_TAG, textContent, type BudgetMeta, type ToolHandler, type ToolInfo, type ToolObservation, type ToolWrapper } from "../../core/index.ts";
import { applyRung, clampArgs, describePatch } from "./args.ts";
import type { BudgetOptions } from "./config.ts";
import { byteLimit, fits, measure, type AnswerSize, type Budget } from "./measure.ts";
import { clampNote, downshiftNote, type Attempted } from "./note.ts";

/**
 * The budget wrapper (stage BUDGET, inside the timeout of one attempt): clamps capped arguments,
 * runs the call, and when the answer is over the tool's budget re-issues it down the tool's ladder,
 * measuring every answer. The first answer that fits is returned, else the smallest seen (the blobs
 * stage then stores it whole and cuts it). Each re-issue passes a new call context to `next`.
 * `meta.budget.maxBytes` tells later stages (the blobs shaper) the byte budget. Tools that read
 * stored outputs back (tag `rehydration`) bring their own bounds and are skipped.
 */
export function budgetWrapper(config: BudgetOptions): ToolWrapper {
  return (next: ToolHandler, tool: ToolInfo): ToolHandler => {
    if (tool.tags.includes(REHYDRATION_TAG)) return next;
    const own = config.perTool[tool.name] ?? {};
    const budget: Budget = { maxBytes: own.maxBytes ?? config.maxBytes, maxTokens: own.maxTokens ?? config.maxTokens };
    const limit = byteLimit(budget);
    const ladder = own.ladder ?? [];

    return async (call) => {
      const { args, clamps } = clampArgs(call.args, own.caps);
      const original = await next(args === call.args ? call : { ...call, args });
      const notes: string[] = clamps.length ? [clampNote(tool.name, clamps)] : [];
      if (original.status !== "SUCCESS") return withBudget(original, limit, notes, { clamped: clamps.length ? clamps : undefined });

      const firstSize = measure(original.content);
      if (fits(firstSize, budget) || ladder.length === 0) return withBudget(original, limit, notes, { clamped: clamps.length ? clamps : undefined });

      const attempts: Attempted[] = [{ change: "", size: firstSize }];
      let best: { obs: ToolObservation; size: AnswerSize; index: number } = { obs: original, size: firstSize, index: 0 };
      let fitted: typeof best | undefined;
      let current: Readonly<Record<string, unknown>> = args;
      for (const rung of ladder) {
        if (call.signal.aborted) break;
        const patched = applyRung(current, rung);
        if (!patched) continue;
        const change = describePatch(Object.fromEntries(Object.entries(patched).filter(([k, v]) => current[k] !== v)));
        current = patched;
        // A new context per request: next() refuses the same object twice by design.
        const obs = await next({ ...call, args: patched });
        if (obs.status !== "SUCCESS") {
          attempts.push({ change, failed: obs.status === "ERROR" ? obs.error.category : "timeout" });
          continue;
        }
        const size = measure(obs.content);
        attempts.push({ change, size });
        const entry = { obs, size, index: attempts.length - 1 };
        if (size.bytes < best.size.bytes) best = entry;
        if (fits(size, budget)) {
          fitted = entry;
          break;
        }
      }
      const chosen = fitted ?? best;
      if (attempts.length === 1) return withBudget(original, limit, notes, { clamped: clamps.length ? clamps : undefined });
      notes.push(downshiftNote(tool.name, budget.maxBytes, attempts, chosen.index, fitted !== undefined, own.hint));
      return withBudget(chosen.obs, limit, notes, {
        clamped: clamps.length ? clamps : undefined,
        downshift: attempts.map((a) => ({ change: a.change, bytes: a.size?.bytes ?? null })),
        shown: chosen.index,
        fitted: fitted !== undefined,
      });
    };
  };
}

/** Prepends the notes as their own text block and records the budget in the result's meta (kept small). */
function withBudget(obs: ToolObservation, maxBytes: number, notes: string[], extra: Omit<BudgetMeta, "maxBytes">): ToolObservation {
  const budget: BudgetMeta = { maxBytes };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) (budget as unknown as Record<string, unknown>)[k] = v;
  return {
    ...obs,
    content: notes.length ? [...textContent(notes.join("\n")), ...obs.content] : obs.content,
    meta: { ...obs.meta, budget },
  };
}

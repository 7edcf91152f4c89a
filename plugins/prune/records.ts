/**
 * What the prune plugin persists in the session (pi custom entries via services.store(), never sent
 * to the model), so the boundary and the pins survive `/reload` and resume.
 */
import type { SessionStore } from "../../core/index.ts";
import type { PruneMode } from "./config.ts";

// User pins are read by folding too: their records live in lib/context (pins.ts).
export { loadPins, PIN_KIND, type PinRecord } from "../../lib/context/index.ts";

/** Record kind of one boundary step. */
export const STEP_KIND = "governor:prune-step";

/**
 * One forward move of the pruning boundary: every turn before the turn whose first (user) message
 * has `key` is pruned, with the rules of `mode` for the turns this step newly covered.
 */
export interface StepRecord {
  /** Stable key of the user message that starts the first kept turn (see turnKey). */
  key: string;
  mode: PruneMode;
  /** 1-based ordinal of that turn when the step was taken (for display). */
  turn: number;
  /** Estimated tokens the step freed. */
  freedTokens: number;
}

function isMode(v: unknown): v is PruneMode {
  return v === "normal" || v === "tight";
}

/** Steps from the store, oldest first; malformed records are skipped. */
export function loadSteps(store: SessionStore): StepRecord[] {
  return store
    .entries(STEP_KIND)
    .filter((r) => typeof r.key === "string" && isMode(r.mode))
    .map((r) => ({ key: r.key as string, mode: r.mode as PruneMode, turn: Number(r.turn) || 0, freedTokens: Number(r.freedTokens) || 0 }));
}

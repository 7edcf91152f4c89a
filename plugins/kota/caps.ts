/**
 * The kota_* tools' integer argument caps: ONE table from which the TypeBox schemas (pi validates),
 * the clamps in the argument mapping (calls that reach the pipeline another way) and the budget
 * plugin's hard caps (presets/kota/budget-policy.ts) are all derived, so they cannot drift apart.
 */
import { Type } from "typebox";

/** One integer argument: the value sent when absent, and the range it is clamped into. */
export interface IntArgCap {
  /** Sent when the model leaves the argument out. */
  readonly default: number;
  /** Smallest value sent to KotaDB. */
  readonly min: number;
  /** Largest value sent (the hard cap). */
  readonly max: number;
  /** Smallest value the schema accepts, when lower than `min` (it is then sent as `min`). Default `min`. */
  readonly acceptFrom?: number;
  /** Why the schema accepts values below `min` (for people reading the table; not sent to the model). */
  readonly note?: string;
}

/**
 * Per tool, per argument: default and cap. kota_search limit 15 (at most 50), context_lines 1 (at
 * most 5); kota_deps depth 1 (at most 3, KotaDB allows 5); kota_task_context max_impacted_files 20
 * (at most 50).
 */
export const KOTA_ARG_CAPS = Object.freeze({
  kota_search: Object.freeze({
    limit: Object.freeze({ default: 15, min: 1, max: 50 }),
    // KotaDB treats context_lines 0 as 3, so the smallest honest request is 1.
    context_lines: Object.freeze({ default: 1, min: 1, max: 5, acceptFrom: 0, note: " (0 is sent as 1: KotaDB treats 0 as 3)" }),
  }),
  kota_deps: Object.freeze({
    depth: Object.freeze({ default: 1, min: 1, max: 3 }),
  }),
  kota_task_context: Object.freeze({
    max_impacted_files: Object.freeze({ default: 20, min: 1, max: 50 }),
  }),
}) satisfies Readonly<Record<string, Readonly<Record<string, IntArgCap>>>>;

/** A tool with capped arguments. */
export type CappedKotaTool = keyof typeof KOTA_ARG_CAPS;

/** kota_task_context `files`: at most this many paths. */
export const KOTA_TASK_FILES_MAX = 20;

/** The cap entry of `tool`'s `arg`. */
function capOf<T extends CappedKotaTool>(tool: T, arg: keyof (typeof KOTA_ARG_CAPS)[T]): IntArgCap {
  return KOTA_ARG_CAPS[tool][arg] as IntArgCap;
}

/** An integer argument clamped into [min, max], or `fallback` when absent or not a number. */
export function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  const n = typeof value === "number" && Number.isFinite(value) ? Math.floor(value) : fallback;
  return Math.min(max, Math.max(min, n));
}

/** The value sent for `tool`'s `arg`: clamped into the table's range, its default when absent. */
export function clampArg<T extends CappedKotaTool>(tool: T, arg: keyof (typeof KOTA_ARG_CAPS)[T], value: unknown): number {
  const cap = capOf(tool, arg);
  return clampInt(value, cap.min, cap.max, cap.default);
}

/** The TypeBox schema of `tool`'s `arg`: "<description> Default d" with the table's bounds (the maximum is in the schema). */
export function capSchema<T extends CappedKotaTool>(tool: T, arg: keyof (typeof KOTA_ARG_CAPS)[T], description: string) {
  const cap = capOf(tool, arg);
  return Type.Integer({ minimum: cap.acceptFrom ?? cap.min, maximum: cap.max, description: `${description ? `${description} ` : ""}Default ${cap.default}` });
}

/** The budget plugin's hard caps of `tool`: argument -> max. */
export function budgetCaps(tool: CappedKotaTool): Record<string, number> {
  return Object.fromEntries(Object.entries(KOTA_ARG_CAPS[tool] as Readonly<Record<string, IntArgCap>>).map(([arg, cap]) => [arg, cap.max]));
}

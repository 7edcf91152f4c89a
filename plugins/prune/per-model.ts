/**
 * Per-model pruning settings (`prune.perModel`): which entries apply to a model and the options in
 * force for it. Context windows and cache prices differ by model, so a user can switch pruning off
 * or change its thresholds for given `provider/model-id` keys.
 *
 * Matching is three map lookups, never a pattern scan: the exact key `provider/id`, then
 * `provider/*`, then `*`. Each setting comes from the most specific key that sets it, else from the
 * top-level options.
 */
import { PER_MODEL_KEYS, type PerModelEntry, type PruneOptions } from "./config.ts";

/** The model a context is sent to, as pi reports it. */
export interface ModelRef {
  provider: string;
  id: string;
}

/** The settings in force for one model. */
export interface ModelSettings {
  /** `provider/id`, or undefined when pi reported no model. */
  model: string | undefined;
  /** false: pruning is off for this model. */
  enabled: boolean;
  /** The `perModel` keys that matched, most specific first. */
  matched: string[];
  /** The settings the matched keys changed (`enabled` included), in PER_MODEL_KEYS order. */
  overrides: PerModelEntry;
  /** Top-level options with the overrides applied. */
  options: PruneOptions;
  /**
   * Identifies the effective options: models with the same overrides share it (and a pruner).
   * "" when nothing but `enabled` was overridden.
   */
  signature: string;
}

/** The `perModel` keys that could match `model`, most specific first. */
export function candidateKeys(model: ModelRef | undefined): string[] {
  if (!model) return ["*"];
  return [`${model.provider}/${model.id}`, `${model.provider}/*`, "*"];
}

/** The settings in force for `model` under `options` (its `perModel` entries applied). */
export function settingsForModel(options: PruneOptions, model: ModelRef | undefined): ModelSettings {
  const perModel = options.perModel ?? {};
  const matched = candidateKeys(model).filter((k) => Object.hasOwn(perModel, k));
  const overrides: Record<string, unknown> = {};
  // Least specific first, so a more specific key overwrites.
  for (const key of [...matched].reverse()) {
    for (const [k, v] of Object.entries(perModel[key]!)) if (v !== undefined) overrides[k] = v;
  }
  const ordered: Record<string, unknown> = {};
  for (const k of ["enabled", ...PER_MODEL_KEYS]) if (k in overrides) ordered[k] = overrides[k];
  const { enabled, ...rest } = ordered as PerModelEntry;
  return {
    model: model ? `${model.provider}/${model.id}` : undefined,
    enabled: enabled !== false,
    matched,
    overrides: ordered as PerModelEntry,
    options: { ...options, ...rest },
    signature: Object.keys(rest).length ? JSON.stringify(rest) : "",
  };
}

/** "key=value, ..." of the overrides, or "-" when none. */
export function describeOverrides(overrides: PerModelEntry): string {
  const parts = Object.entries(overrides).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(", ") : "-";
}

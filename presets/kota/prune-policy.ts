/**
 * How the kota preset prunes: the generic prune plugin's defaults, plus what it must know about the
 * kota_* tools (which answers re-run cheaply, which are pinned, how their placeholders read).
 */
import { deepMerge } from "../../core/config/merge.ts";
import type { DeepPartial } from "../../core/index.ts";
import { prune, pruneDefaults, type PruneOptions } from "../../plugins/prune/index.ts";

/**
 * Tools whose results the kota preset prunes in older turns whatever their size: pi's read/bash
 * and KotaDB's navigation answers, which re-run in milliseconds from the index and whose
 * placeholders name the exact call. kota_impact is not here: it is pinned.
 */
export const KOTA_PRUNE_TOOLS: readonly string[] = Object.freeze(["read", "bash", "kota_search", "kota_deps", "kota_usages", "kota_task_context"]);

/** The kota preset's overrides of the prune plugin's defaults. */
export const kotaPruneOverrides = Object.freeze({
  pruneTools: [...KOTA_PRUNE_TOOLS],
  // A snippet answer is code the model already read; paths/compact answers are small and stay.
  snippetTools: ["kota_search"],
  // The impact summary (risk, affected files, tests) is what the model plans with: never pruned.
  impactTools: ["kota_impact"],
  perTool: {
    kota_search: { argOrder: ["query", "scope", "output", "limit", "glob"], rehydrate: "Re-run it with a narrower query/glob." },
    kota_deps: { argOrder: ["file_path", "direction", "depth"] },
    kota_usages: { argOrder: ["symbol", "file"] },
    kota_impact: { argOrder: ["change_type", "description", "files_to_modify"] },
    kota_task_context: { argOrder: ["files"] },
  },
}) satisfies DeepPartial<PruneOptions>;

/** The prune options the kota preset runs with when no config file changes them. */
export const kotaPruneDefaults: PruneOptions = deepMerge(pruneDefaults, kotaPruneOverrides);

/** The prune plugin as the kota preset builds it: `kotaPrune()` or `kotaPrune({ keepRecentTurns: 3 })`. */
export function kotaPrune(overrides?: Parameters<typeof prune>[0]): ReturnType<typeof prune> {
  return prune(deepMerge(kotaPruneOverrides as Parameters<typeof prune>[0], overrides));
}

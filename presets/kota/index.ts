/**
 * The default preset, `kota`: pi + KotaDB. Six bounded kota_* tools behind the full resilience stack,
 * output budgets with downshift, blobs (kota results and pi's read/bash), pruning with the impact
 * summary pinned, and autoContext (off until `kota.autoContext` says otherwise). Commands hang under
 * `/kota`: status, index, restart (kota), unfold (fold), pruning, pin (prune), blobs, purge-blobs (blobs), doctor
 * (doctor, also as `/governor doctor`).
 *
 * Plugin order (apply order; run order comes from stages): redact, execution-log, policies, breaker, retry, timeout,
 * budget, kota, auto-context, blobs, fold, prune, telemetry (off by default), chaos (off unless
 * the global config enables it), doctor. autoContext needs kota's
 * `kota:runtime` service; the host applies kota first wherever it stands. Prune uses fold's
 * `fold:ranges` service when fold runs (fold stands before prune, as folding did inside prune).
 */
import { definePreset } from "../../core/index.ts";
import { autoContext } from "../../plugins/auto-context/index.ts";
import { BUILTIN_BLOB_TOOLS, blobs } from "../../plugins/blobs/index.ts";
import { budget } from "../../plugins/budget/index.ts";
import { chaos } from "../../plugins/chaos/index.ts";
import { breaker } from "../../plugins/circuit-breaker/index.ts";
import { doctor } from "../../plugins/doctor/index.ts";
import { executionLog } from "../../plugins/execution-log/index.ts";
import { fold } from "../../plugins/fold/index.ts";
import { kota } from "../../plugins/kota/index.ts";
import { policies } from "../../plugins/policies/index.ts";
import { recall } from "../../plugins/recall/index.ts";
import { redact } from "../../plugins/redact/index.ts";
import { telemetry } from "../../plugins/telemetry/index.ts";
import { retry } from "../../plugins/retry/index.ts";
import { timeout } from "../../plugins/timeout/index.ts";
import { KOTA_BUDGET_TOOLS } from "./budget-policy.ts";
import { kotaPrune } from "./prune-policy.ts";

export { KOTA_BUDGET_TOOLS } from "./budget-policy.ts";
export { KOTA_PRUNE_TOOLS, kotaPrune, kotaPruneDefaults, kotaPruneOverrides } from "./prune-policy.ts";

/** Attempt limit of kota_index, in milliseconds (first indexing of a large repo is slow). Default 600000. */
export const KOTA_INDEX_TIMEOUT_MS = 600_000;

/** pi's built-in tools whose large output goes to the blob cache; defined beside the blobs plugin, re-exported for older imports. */
export { BUILTIN_BLOB_TOOLS } from "../../plugins/blobs/index.ts";

/** The default preset. */
export const kotaPreset = definePreset({
  name: "kota",
  description: "pi + KotaDB: bounded kota_* tools with resilience, budgets, blobs, pruning and autoContext.",
  commandRoot: "kota",
  plugins: () => [
    redact(),
    executionLog(),
    policies(),
    breaker(),
    retry(),
    timeout({ perTool: { kota_index: KOTA_INDEX_TIMEOUT_MS } }),
    budget({ perTool: { ...KOTA_BUDGET_TOOLS } }),
    kota(),
    autoContext(),
    blobs({ builtinTools: [...BUILTIN_BLOB_TOOLS] }),
    fold(),
    kotaPrune(),
    recall(),
    telemetry(),
    chaos(),
    doctor(),
  ],
});

/**
 * The step rule against its references on one session, in one run: the previous release's default
 * step settings, the defaults before the rule knew the clock (CLOCKLESS_STEP_DEFAULTS), the current
 * defaults, the result-only plugin (RESULT_ONLY_PRUNING), summarising each run with the model
 * (summarise-runs.ts) and the cheapest timing of the same steps with hindsight (any number of steps,
 * knowing the idle gaps), each under both cache models and as a share of the cost without pruning.
 * Requests with times are priced with cache expiry (and pi's warming, with `warming`). Shared by the
 * bench and the tests of the step rule.
 */
import type { GovernorPlugin } from "../../core/index.ts";
import { CLOCKLESS_STEP_DEFAULTS, PREVIOUS_STEP_DEFAULTS } from "../../plugins/prune/index.ts";
import { hindsightRuns, STEP_EVERY_REQUEST } from "./hindsight.ts";
import { governorPolicy, noPruning, resultOnlyPolicy } from "./policies.ts";
import { type SimOptions, type SimRequest, simulate, type SimTotals } from "./simulate.ts";
import { summariseEachRun } from "./summarise-runs.ts";

/** Cost as a share of no pruning under each cache model, the cache breaks (prefix / breakpoint model), cold requests and warming refreshes. */
export interface RelativeCost {
  prefix: number;
  breakpoint: number;
  breaksPrefix: number;
  breaksBreakpoint: number;
  coldRequests: number;
  warms: number;
}

/** One session's comparison. */
export interface StepComparison {
  none: SimTotals;
  previous: RelativeCost;
  /** The defaults without the clock: no cold caches, no answer to cache warming. */
  clockless: RelativeCost;
  now: RelativeCost;
  resultOnly: RelativeCost;
  summariseEachRun: RelativeCost;
  /** The cheapest schedule under each model, each measured under the model it was chosen for. */
  hindsight: RelativeCost;
}

const relative = (t: SimTotals, none: SimTotals): RelativeCost => ({
  prefix: t.costPrefix / none.costPrefix,
  breakpoint: t.costBreakpoint / none.costBreakpoint,
  breaksPrefix: t.breaksPrefix,
  breaksBreakpoint: t.breaksBreakpoint,
  coldRequests: t.coldRequests,
  warms: t.warms,
});

/**
 * Compares the step settings on `requests`. `plugin` builds the prune plugin with a preset's defaults
 * (default: the plugin's own); `prune` settings apply to every policy (the result-only plugin's and
 * the previous defaults' step settings on top).
 */
export async function compareStepRules(
  requests: readonly SimRequest[],
  options: SimOptions & { plugin?: () => GovernorPlugin<any>; prune?: Record<string, unknown> } = {},
): Promise<StepComparison> {
  const sim: SimOptions = {
    systemTokens: options.systemTokens,
    contextWindow: options.contextWindow,
    ...(options.cacheLifetimeMs !== undefined ? { cacheLifetimeMs: options.cacheLifetimeMs } : {}),
    ...(options.warming ? { warming: options.warming } : {}),
  };
  const base = { ...(options.plugin ? { plugin: options.plugin } : {}), ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}) };
  const none = (await simulate(requests, noPruning, sim)).totals;
  const run = async (prune: Record<string, unknown>) =>
    relative((await simulate(requests, governorPolicy({ ...base, prune: { ...options.prune, ...prune } }), sim)).totals, none);
  const previous = await run({ ...PREVIOUS_STEP_DEFAULTS });
  const clockless = await run({ ...CLOCKLESS_STEP_DEFAULTS });
  const now = await run({});
  const resultOnly = relative((await simulate(requests, resultOnlyPolicy({ ...base, prune: options.prune }), sim)).totals, none);
  const summarised = relative((await simulate(requests, summariseEachRun(), sim)).totals, none);
  const best = await hindsightRuns(requests, governorPolicy({ ...base, prune: { ...options.prune, ...STEP_EVERY_REQUEST } }), sim);
  const hindsight = {
    prefix: best.prefix.totals.costPrefix / none.costPrefix,
    breakpoint: best.breakpoint.totals.costBreakpoint / none.costBreakpoint,
    breaksPrefix: best.prefix.totals.breaksPrefix,
    breaksBreakpoint: best.breakpoint.totals.breaksBreakpoint,
    coldRequests: best.prefix.totals.coldRequests,
    warms: best.prefix.totals.warms,
  };
  return { none, previous, clockless, now, resultOnly, summariseEachRun: summarised, hindsight };
}

/**
 * Answering the host's cache warming (pi 0.87 and later: between requests pi re-sends the last
 * request so its cache entry does not expire, and asks extensions first, `cache_warming_decision`).
 *
 * pi weighs a refresh against losing the whole entry: it warms when the chance that a request comes
 * in time times the extra cost of a miss, less the refresh, is at least $0.05. Pruning knows more: the
 * next request takes the step pending then, and everything after that step's first change is written
 * again anyway (now, on a cold cache, or later at a rewrite's price); warming saves only the part
 * before it. So the expected saving is pi's, with the miss cost scaled by the share of the prompt the
 * next request keeps. When that falls below pi's own threshold the answer is "stop" (the same when
 * letting the cache go cold and stepping then is cheaper than warming and stepping later: the step's
 * rewrite is the part the share leaves out). Otherwise pi's decision stands: pruning never starts a
 * warming pi did not want, and never answers when nothing is pending.
 */
import type { CacheWarmingAction, CacheWarmingInfo } from "../../core/index.ts";

/** pi's minimum expected saving for a refresh (dollars; pi's settings documentation). */
export const HOST_MINIMUM_SAVINGS = 0.05;

/** One answered decision, for the status and the `cache_warming_answered` event. */
export interface WarmingAnswer {
  /** The action pruning returns; undefined leaves the decision as it was. */
  action: CacheWarmingAction | undefined;
  /** Share (0-1) of the warmed prompt the next request keeps. */
  keptShare: number;
  /** The expected saving of the refresh with that share (dollars). */
  expectedSavings: number;
}

/**
 * The answer to one refresh. `action`: the decision so far (pi's, or an earlier extension's);
 * `rewrittenTokens`: tokens of the warmed prompt the next request writes again anyway
 * (`SessionPruner.nextStepRewrite`); `sentTokens`: the prompt's message tokens as the pruner sent
 * them, used when the host reports no prompt size.
 */
export function answerWarming(action: CacheWarmingAction, info: CacheWarmingInfo, rewrittenTokens: number, sentTokens: number): WarmingAnswer {
  const prompt = info.promptTokens !== undefined && info.promptTokens > 0 ? info.promptTokens : sentTokens;
  const keptShare = prompt > 0 ? Math.max(0, Math.min(1, (prompt - rewrittenTokens) / prompt)) : 1;
  const expectedSavings = info.continuationProbability * info.missCost * keptShare - info.warmCost;
  const stop = action === "warm" && rewrittenTokens > 0 && expectedSavings < HOST_MINIMUM_SAVINGS;
  return { action: stop ? "stop" : undefined, keptShare, expectedSavings };
}

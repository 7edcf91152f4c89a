/**
 * The provider's prompt cache as the host knows it: how long an entry lives, when the host last
 * refreshed it, and the host's cache warming decisions (pi 0.87 and later keep caches warm between
 * requests, `cacheWarming`, and let extensions answer each refresh with `cache_warming_decision`).
 *
 * The core's part is neutral: the `context` event carries {@link PromptCacheInfo}, and the
 * `cacheWarming` waterfall lets a plugin change one decision ({@link CacheWarmingInfo} in, an
 * action out). What to answer is a plugin's decision; on hosts without warming the hook never runs.
 */

/** What the host knows of the prompt cache a request goes to. */
export interface PromptCacheInfo {
  /**
   * Seconds a cache entry lives after its last use, as the model declares it for the retention in use
   * (pi's `promptCache.short`/`long`); absent when the model declares none.
   */
  readonly lifetimeSeconds?: number;
  /** When the host last refreshed the cache entry by cache warming (ms since the epoch), if it did since the last request. */
  readonly warmedAt?: number;
}

/** A warming decision: send the refresh, or stop warming until the next request. */
export type CacheWarmingAction = "warm" | "stop";

/** One refresh the host is about to send (pi's `cache_warming_decision`), with the host's own decision. */
export interface CacheWarmingInfo {
  readonly sessionId: string;
  /** Price of this refresh (dollars, the host's estimate). */
  readonly warmCost: number;
  /** Extra price of the next request if the entry is lost (dollars). */
  readonly missCost: number;
  /** The host's estimate (0-1) that a request comes before the entry expires. */
  readonly continuationProbability: number;
  /** The host's own decision. */
  readonly hostAction: CacheWarmingAction;
  /** Whether the agent is idle (between runs) or a run is going on (a long tool call). */
  readonly idle: boolean;
  /** Tokens of the prompt the refresh re-sends (the last request's, as the provider counted them), when known. */
  readonly promptTokens?: number;
  /** The model the refresh goes to, when known. */
  readonly model?: { provider: string; id: string };
}

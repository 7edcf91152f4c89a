/**
 * pi's prompt-cache warming (pi 0.87 and later, setting `cacheWarming`; `"idle"` by default since 1.5.1), as the simulator prices it.
 *
 * After every request pi arms a timer that re-sends that request with a one-token output cap before
 * its cache entry expires: at 90% of the lifetime, at least ten seconds before it (none for a lifetime
 * of ten seconds or less), again and again until the next real request, for at most 30 minutes after
 * the request once the agent is idle (`"idle"`, pi's default) or 60 minutes during a run. Before each
 * refresh pi decides whether it pays: the refresh costs reading the prompt from cache (plus one output
 * token); a lost entry costs writing it again instead of reading it; a real request comes in time with
 * probability 0.15 while idle (1 during a run); pi warms when the expected saving is at least $0.05,
 * and extensions may override each decision (`cache_warming_decision`, the last answer wins; "stop"
 * ends warming until the next request). The numbers are pi's own.
 */

/** pi's `cacheWarming` setting. */
export type WarmingMode = "off" | "streaming" | "idle";

/** Dollars per million tokens, as pi's model catalog gives them. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Claude Sonnet 4.5, the generated sessions' model. */
export const SONNET_PRICES: ModelPrices = Object.freeze({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });

/** How the simulator warms: pi's setting and the model's prices (warming only pays for large or dear prompts). */
export interface WarmingModel {
  mode: WarmingMode;
  prices: ModelPrices;
}

/** A refresh is sent only when it is expected to save at least this many dollars. */
export const MINIMUM_EXPECTED_SAVINGS = 0.05;
/** Chance that a real request arrives before the entry expires while the agent is idle. */
export const IDLE_CONTINUATION_PROBABILITY = 0.15;
/** How long after a request warming goes on while idle (ms). */
export const MAX_IDLE_AGE_MS = 30 * 60_000;
/** How long after a request warming goes on during a run (ms). */
export const MAX_RUN_AGE_MS = 60 * 60_000;

/** Time from a request (or refresh) to the next refresh for a cache lifetime (ms), or undefined when pi cannot warm it. */
export function refreshDelayMs(lifetimeMs: number): number | undefined {
  if (lifetimeMs <= 10_000) return undefined;
  return Math.max(1, Math.floor(Math.min(lifetimeMs * 0.9, lifetimeMs - 10_000)));
}

/** What pi weighs before one refresh (the fields of its `cache_warming_decision` event), in dollars. */
export interface WarmingDecision {
  warmCost: number;
  missCost: number;
  continuationProbability: number;
  action: "warm" | "stop";
}

/** pi's decision for a prompt of `promptTokens` tokens, idle or during a run. */
export function piWarmingDecision(promptTokens: number, prices: ModelPrices, idle: boolean): WarmingDecision {
  const dollars = (tokens: number, perMillion: number) => (tokens * perMillion) / 1e6;
  const hit = dollars(promptTokens, prices.cacheRead);
  const miss = prices.cacheWrite > 0 ? dollars(promptTokens, prices.cacheWrite) : dollars(promptTokens, prices.input);
  const warmCost = hit + dollars(1, prices.output);
  const missCost = Math.max(0, miss - hit);
  const continuationProbability = idle ? IDLE_CONTINUATION_PROBABILITY : 1;
  const worth = promptTokens > 0 && (hit > 0 || miss > 0) && continuationProbability * missCost - warmCost >= MINIMUM_EXPECTED_SAVINGS;
  return { warmCost, missCost, continuationProbability, action: worth ? "warm" : "stop" };
}

/**
 * The times of the refreshes pi sends between a request at `from` and the next at `to` (ms), asking
 * `decide` before each (pi's decision and the extensions' answer; "stop" ends them). Empty when
 * warming is off, cannot warm this lifetime, or is `"streaming"` while the agent is idle.
 */
export async function refreshTimes(
  from: number,
  to: number,
  lifetimeMs: number,
  mode: WarmingMode,
  idle: boolean,
  decide: (at: number) => Promise<"warm" | "stop">,
): Promise<number[]> {
  const delay = refreshDelayMs(lifetimeMs);
  if (mode === "off" || delay === undefined || (mode === "streaming" && idle)) return [];
  const maxAge = idle ? MAX_IDLE_AGE_MS : MAX_RUN_AGE_MS;
  const out: number[] = [];
  for (let at = from + delay; at < to && at - from <= maxAge; at += delay) {
    if ((await decide(at)) === "stop") break;
    out.push(at);
  }
  return out;
}

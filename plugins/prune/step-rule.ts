/**
 * When the pruning boundary moves: the cache economics of one step, as pure functions.
 *
 * A step replaces the output of the turns that left the protected window with placeholders. It saves
 * `pending` tokens on every later call, but the provider must write the changed prompt into its cache
 * again (1.25x instead of 0.1x for those tokens), once. The rule is ski rental: keep paying the
 * cached rate for the prunable output ("carry") until what was paid exceeds one rewrite, then step.
 * That is never worse than twice the best choice made with hindsight, and it makes steps rare and
 * large when a rewrite is expensive (a change far behind the end of the prompt) and frequent when it
 * is cheap (a change within the provider's lookback of the end).
 *
 * Above `forceStepPercent` of the window the prompt is large, so a step is taken regardless of its
 * cache cost, but only once it frees enough to pay for rewriting that large prompt: at least
 * `forceStepFreePercent` of the prompt at the force line, falling linearly to any step at all when the
 * prompt reaches 90% of the window. Without that floor, a long session whose pruned prompt stays above the
 * line steps (and rewrites the whole cache) on every turn for the few tokens one turn adds; with it,
 * steps are rare and large while the prompt is far from the window, and as frequent as needed near it.
 */
import { CACHE_PRICING, type PruneOptions } from "./config.ts";
import { tokensOf } from "./size.ts";

/** Inputs of one step decision, in estimated tokens. */
export interface StepInput {
  /** Tokens the step would free. */
  pending: number;
  /** Tokens of the prompt that would be sent without the step. */
  sent: number;
  /**
   * Tokens the provider would write again if the step is taken now, under the breakpoint cache model
   * (a change beyond the provider's lookback of the end rewrites the whole prompt).
   */
  rewrite: number;
  /** The same under the prefix cache model (everything after the first change). Default: `rewrite`. */
  rewritePrefix?: number;
  /**
   * Tokens a step of the same output would rewrite at a later request, once the change lies behind
   * the provider's lookback (breakpoint model: the whole prompt). Default: `rewrite` (no cheaper now).
   */
  rewriteLater?: number;
  /** Model calls the session is expected to make after this one. Default: unbounded. */
  horizon?: number;
  /**
   * Share of the recent turns (0-1) whose step was still within the provider's lookback when the
   * turn left the protected window: how likely a step now is followed by cheap steps. Default 0.
   */
  cheapShare?: number;
  /** Model context window. */
  window: number;
  /** Carry so far (cached-read cost paid for the pending output since the last step). */
  carry: number;
}

/** The decision and the carry to keep. */
export interface StepOutcome {
  step: boolean;
  carry: number;
}

type StepOptions = Pick<PruneOptions, "forceStepPercent" | "minStepTokens" | "cacheAware"> & Partial<Pick<PruneOptions, "forceStepFreePercent" | "minStepPercent" | "stepRule">>;

/** The smallest step the cache-cost rule takes: `minStepTokens`, or `minStepPercent` of the prompt when larger. */
export function minStepSize(sent: number, options: Pick<StepOptions, "minStepTokens" | "minStepPercent">): number {
  return Math.max(options.minStepTokens, (sent * (options.minStepPercent ?? 0)) / 100);
}

/**
 * Share of the window at which a forced step no longer needs to free anything: the system prompt and
 * tool definitions (not in the messages the rule measures) and the next turn's output need room.
 */
export const FORCE_RAMP_END = 0.9;

/**
 * Tokens a forced step must free when `sent` tokens would be sent: `forceStepFreePercent` of the prompt
 * at the force line, falling linearly to 0 at FORCE_RAMP_END of the window. Infinity below the force line (no forced step).
 */
export function forcedStepMinTokens(sent: number, window: number, options: Pick<StepOptions, "forceStepPercent" | "forceStepFreePercent">): number {
  const line = (window * options.forceStepPercent) / 100;
  if (sent < line) return Number.POSITIVE_INFINITY;
  const fraction = (options.forceStepFreePercent ?? 0) / 100;
  const end = window * FORCE_RAMP_END;
  if (fraction === 0 || sent >= end) return 0;
  return fraction * sent * ((end - sent) / (end - line));
}

/**
 * Extra cost of rewriting `prefix` / `breakpoint` tokens (fresh-input units): a written token costs
 * `write` instead of the `read` it would have cost from cache. Neither cache model is known to the
 * pruner (providers differ, and a gateway may change it), so both weigh the same.
 */
export function rewriteCost(prefix: number, breakpoint: number): number {
  return ((CACHE_PRICING.write - CACHE_PRICING.read) * (prefix + breakpoint)) / 2;
}

/**
 * Decides one step (see the module comment): forced near the window; otherwise taken when it pays
 * within the expected rest of the session and waiting would not make it cheaper per token freed.
 */
export function decideStep(input: StepInput, options: StepOptions): StepOutcome {
  if (input.pending === 0) return { step: false, carry: input.carry };
  if (input.pending >= forcedStepMinTokens(input.sent, input.window, options)) return { step: true, carry: 0 };
  if (input.pending < minStepSize(input.sent, options)) return { step: false, carry: input.carry };
  if (!options.cacheAware) return { step: true, carry: 0 };
  // Per later request the step saves reading `pending` tokens from cache; this request it pays the rewrite.
  const saving = CACHE_PRICING.read * input.pending;
  if (options.stepRule === "carry") {
    const carry = input.carry + saving;
    const cost = (CACHE_PRICING.write - CACHE_PRICING.read) * input.rewrite - saving;
    return carry >= cost ? { step: true, carry: 0 } : { step: false, carry };
  }
  const cost = rewriteCost(input.rewritePrefix ?? input.rewrite, input.rewrite) - saving;
  if (cost <= 0) return { step: true, carry: 0 };
  const carry = input.carry + saving;
  // Not repaid before the session is expected to end: never worth it now.
  if (saving * (input.horizon ?? Number.POSITIVE_INFINITY) < cost) return { step: false, carry };
  // Cheaper now than at any later request (the change is still within the provider's lookback):
  // waiting would carry this output and then pay more to drop it.
  const later = rewriteCost(input.rewritePrefix ?? input.rewrite, input.rewriteLater ?? input.rewrite) - saving;
  if (cost < later) return { step: true, carry: 0 };
  // Steps are usually cheap in this session: this dear one brings the next ones back within the
  // lookback, while waiting carries the output and pays as much later.
  if (process.env.REGIME && (input.cheapShare ?? 0) >= Number(process.env.REGIME)) return { step: true, carry: 0 };
  // Ski rental: carry the output until what carrying it cost covers one rewrite.
  return carry >= cost ? { step: true, carry: 0 } : { step: false, carry };
}

/** Per-message sizes the rewrite estimate needs. */
export interface SizedMessage {
  chars: number;
  /** Content blocks, as the provider counts them. */
  blocks: number;
}

/**
 * Tokens the provider writes again if message `firstChange` changes: the part after it when it lies
 * within the provider's lookback of the end (an earlier breakpoint right before it still hits),
 * otherwise the whole prompt after the system prompt (`sentAfterChars`).
 */
export function rewriteTokens(messages: readonly SizedMessage[], firstChange: number, sentAfterChars: number, pendingChars: number): number {
  let blocks = 0;
  let suffix = 0;
  for (let i = messages.length - 1; i >= firstChange; i--) {
    blocks += messages[i]!.blocks;
    suffix += messages[i]!.chars;
    if (blocks > CACHE_PRICING.lookbackBlocks) return tokensOf(sentAfterChars);
  }
  return tokensOf(suffix - pendingChars);
}

/**
 * The rewrite of a step under both cache models, and under the breakpoint model at a later request:
 * `prefix` everything after the first change (`suffixChars` from it to the end, less what the step
 * frees); `breakpoint` what follows the cache entry the provider finds: the end of the latest earlier
 * request at or before the change (`requestEnds`, message counts, ascending), when it lies within
 * the lookback of the end, else the whole prompt after the system prompt; `later` that whole prompt.
 * Without `requestEnds`, the change itself counts as such an end ({@link rewriteTokens}).
 */
export function rewriteEstimates(messages: readonly SizedMessage[], firstChange: number, sentAfterChars: number, pendingChars: number, suffixChars: number, requestEnds?: readonly number[]): { prefix: number; breakpoint: number; later: number } {
  let hit = firstChange;
  if (requestEnds) {
    hit = -1;
    for (let k = requestEnds.length - 1; k >= 0; k--) {
      if (requestEnds[k]! <= firstChange) {
        hit = requestEnds[k]!;
        break;
      }
    }
  }
  return {
    prefix: tokensOf(Math.max(0, Math.min(sentAfterChars, suffixChars - pendingChars))),
    breakpoint: hit < 0 ? tokensOf(sentAfterChars) : rewriteTokens(messages, hit, sentAfterChars, pendingChars),
    later: tokensOf(sentAfterChars),
  };
}

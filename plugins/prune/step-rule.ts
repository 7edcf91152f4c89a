/**
 * When the pruning boundary moves, as pure functions: a step saves reading the pruned output from
 * cache (0.1x) on every later call and costs rewriting the changed part of the prompt (1.25x) once.
 * The provider's cache is unknown here, so two models weigh the same ({@link rewriteEstimates}), and
 * {@link decideStep} takes a step only where the session's expected cost falls.
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

type StepOptions = Pick<PruneOptions, "forceStepPercent" | "minStepTokens" | "cacheAware"> &
  Partial<Pick<PruneOptions, "forceStepFreePercent" | "minStepPercent" | "stepRule">>;

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
 * Decides one step. One objective, the expected cost of the session. A step is taken when:
 * - it repays its rewrite within the calls the session is expected to make (as many as it made so
 *   far: a long session is likely to go on, a young one may end soon); and
 * - it is cheaper now than later: a change still within the lookback costs only the end of the
 *   prompt, while a later step of the same output rewrites the whole prompt under model (b); or
 * - most recent turns could step within the lookback ({@link CHEAP_REGIME_SHARE}): a dear step now
 *   brings the next ones back to cheap, while waiting carries the output and pays as much later; or
 * - otherwise (ski rental) once carrying the output has cost as much as one rewrite, which makes
 *   dear steps rare and large.
 * Above `forceStepPercent` of the window a step is taken regardless (room for the next turns), once
 * it frees `forceStepFreePercent` of the prompt ({@link forcedStepMinTokens}). Cache breaks are a
 * consequence, never a target. `stepRule: "carry"` keeps earlier releases' rule: the ski rental
 * alone, on model (b)'s rewrite counted from the change itself.
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
  if ((input.cheapShare ?? 0) >= CHEAP_REGIME_SHARE) return { step: true, carry: 0 };
  // Ski rental: carry the output until what carrying it cost covers one rewrite.
  return carry >= cost ? { step: true, carry: 0 } : { step: false, carry };
}

/** Share of recent turns that stepped within the lookback above which a dear step is taken at once (see decideStep). */
export const CHEAP_REGIME_SHARE = 0.5;

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
 * The rewrite of a step under both cache models, and under the breakpoint model at a later request
 * (model (b) is Anthropic's: a cache entry an earlier call wrote counts within the provider's lookback
 * of about 20 content blocks; pi 1.x's message threads are billed and cached the same way):
 * `prefix` everything after the first change (`suffixChars` from it to the end, less what the step
 * frees); `breakpoint` what follows the cache entry the provider finds: the end of the latest earlier
 * request at or before the change (`requestEnds`, message counts, ascending), when it lies within
 * the lookback of the end, else the whole prompt after the system prompt; `later` that whole prompt.
 * Without `requestEnds`, the change itself counts as such an end ({@link rewriteTokens}).
 */
export function rewriteEstimates(
  messages: readonly SizedMessage[],
  firstChange: number,
  sentAfterChars: number,
  pendingChars: number,
  suffixChars: number,
  requestEnds?: readonly number[],
): { prefix: number; breakpoint: number; later: number } {
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

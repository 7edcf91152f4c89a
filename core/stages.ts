/**
 * Named stages order every tap in the pipeline. Gaps of 100 leave room for third-party plugins to slot
 * in between (`STAGE.RETRY + 10`), which is why tapable's `before` is not offered: a stage number is
 * the one ordering mechanism, and a stable sort by it decides the run order.
 *
 * Tool-call wrappers (`hooks.toolCall`): a LOWER stage is OUTER. The outermost wrapper sees the call
 * first and the final observation last; the innermost one sits right above the transport.
 * Outside in: OBSERVE -> BREAKER -> RETRY -> TIMEOUT (per attempt) -> BUDGET -> TRANSPORT.
 *
 * Transforms (`toolResult`, `context`, `beforeAgentStart`): lower stages run first.
 */
export const STAGE = Object.freeze({
  /** Outermost wrapper: logging, metrics, the execution log. */
  OBSERVE: 100,
  /** Circuit breaker: fails fast before any retry or attempt is spent. */
  BREAKER: 200,
  /** Retry: decides whether another attempt runs. */
  RETRY: 300,
  /** Per-attempt work: the timeout wraps each attempt, not the whole call. */
  ATTEMPT: 400,
  /** Budget downshift: may re-issue a cheaper request inside one attempt. */
  BUDGET: 500,
  /**
   * Innermost slot, right above the tool itself: sees every attempt and every budget re-issue. No
   * built-in plugin sits here; it is for third-party wrappers (argument checks, tracing).
   */
  TRANSPORT: 900,

  /**
   * toolResult: turn raw output into model-facing text. No built-in plugin sits here; third-party
   * formatters do (docs/examples/redact-secrets-plugin.ts).
   */
  FORMAT: 100,
  /** toolResult: cut oversized output to a bounded excerpt and store the original (blobs). */
  SHAPE: 200,
  /** toolResult / context: mark results that must survive pruning. */
  PIN: 300,
  /** context: replace old payloads with placeholders. */
  PRUNE: 400,
  /** beforeAgentStart: inject briefings. */
  INJECT: 100,
  /** Default for taps that do not say. */
  DEFAULT: 500,
});

/**
 * Named stages order every tap in the pipeline, one constant per hook. Gaps of 100 leave room for
 * third-party plugins to slot in between (`TOOL_STAGE.RETRY + 10`), which is why tapable's `before`
 * is not offered: a stage number is the one ordering mechanism, and a stable sort by it decides the
 * run order. On the hooks where order changes what runs (toolCall, toolGate, toolResult, context) two
 * plugins on one stage are an error (GOV_TAP_TIE); on the lifecycle and event hooks equal stages keep
 * the order plugins were applied in. A tap without a stage runs at {@link DEFAULT_STAGE}. Numbers of
 * different hooks are unrelated: each hook sorts only its own taps.
 */

/**
 * Stages of the tool-call wrappers (`hooks.toolCall`). A LOWER stage is OUTER: the outermost wrapper
 * sees the call first and the final observation last; the innermost one sits right above the tool.
 * Outside in: OBSERVE -> BREAKER -> RETRY -> ATTEMPT (the timeout, per attempt) -> BUDGET -> TRANSPORT.
 */
export const TOOL_STAGE = Object.freeze({
  /** 100. Outermost wrapper: logging, metrics, the execution log. */
  OBSERVE: 100,
  /** 200. Circuit breaker: fails fast before any retry or attempt is spent. */
  BREAKER: 200,
  /** 300. Retry: decides whether another attempt runs. */
  RETRY: 300,
  /** 400. Per-attempt work: the timeout wraps each attempt, not the whole call. */
  ATTEMPT: 400,
  /** 500. Budget downshift: may re-issue a cheaper request inside one attempt. */
  BUDGET: 500,
  /**
   * 900. Innermost slot, right above the tool itself: sees every attempt and every budget re-issue
   * (argument checks, tracing, fault injection).
   */
  TRANSPORT: 900,
});

/** Stages of `hooks.toolGate` (every call pi is about to run); lower runs first. */
export const GATE_STAGE = Object.freeze({
  /** 100. Rules that refuse a call by name, annotation or count (policies). */
  POLICY: 100,
  /** 200. The circuit breaker refuses calls to a server that keeps failing. */
  BREAKER: 200,
});

/** Stages of `hooks.toolResult` (every finished tool result); lower runs first. */
export const RESULT_STAGE = Object.freeze({
  /**
   * 100. Turn raw output into model-facing text (third-party formatters,
   * docs/examples/redact-secrets-plugin.ts). The budget plugin waits for its stored answers just
   * before, at FORMAT - 5.
   */
  FORMAT: 100,
  /** 200. Cut oversized output to a bounded excerpt and store the original (blobs). */
  SHAPE: 200,
  /** 300. Mark results that must survive pruning (prune's pins). */
  PIN: 300,
  /** 900. See the final result after every transform (telemetry). */
  OBSERVE: 900,
});

/**
 * Every slot of `hooks.context` (the message list about to go to the model), in run order: the whole
 * order of a request is this table. Each built-in tap names its slot; two plugins on one slot is an
 * error when the second one taps (GOV_TAP_TIE), so no order is left to the order plugins are applied in.
 */
export const CONTEXT_STAGE = Object.freeze({
  /**
   * -100. Prune puts the content beneath its own earlier context edits back (pi 0.87+), before any
   * other tap reads the history: everything after sees what the session holds.
   */
  RESTORE: -100,
  /** 0. Blobs learns which blobs the list points to (retention), before pruning replaces old results. */
  BLOBS: 0,
  /** 350. Telemetry opens the request's span and notes the list's size before anything shrinks it. */
  MEASURE_BEFORE: 350,
  /** 390. Fold keeps the unpruned history: fold records and ranges come from it, not from placeholders. */
  FOLD_CAPTURE: 390,
  /** 399. Prune keeps its own input, to turn the request's edits into context edits at the turn end. */
  PRUNE_INPUT: 399,
  /** 400. Replace old payloads with placeholders (prune). */
  PRUNE: 400,
  /** 401. Prune keeps its own output, the other half of the edits. */
  PRUNE_OUTPUT: 401,
  /** 450. Fold replaces folded turns in the pruned list, so pruning's decisions never see a fold. */
  FOLD: 450,
  /** 460. Recall measures the savings of the list as sent and adds its pointer after a compaction. */
  RECALL: 460,
  /** 470. Telemetry closes the request's span with what pruning reported: the list as it goes out. */
  MEASURE_AFTER: 470,
});

/** Stages of `hooks.beforeAgentStart` (injections in front of a prompt); lower runs first. */
export const INJECT_STAGE = Object.freeze({
  /** 100. Add briefings the prompt asks for (autoContext). */
  BRIEFING: 100,
});

/**
 * Stages of the lifecycle hooks (`sessionStart`, `sessionShutdown`, `runStart`, `turnStart`,
 * `turnEnd`); lower runs first.
 */
export const LIFECYCLE_STAGE = Object.freeze({
  /** 100. Observers: telemetry and the execution log start early and flush before resources close. */
  OBSERVE: 100,
  /** 500. Everything else: opening and closing a plugin's own resources. Same as {@link DEFAULT_STAGE}. */
  DEFAULT: 500,
});

/** Stages of `hooks.event` (observers of everything that happens); lower runs first. */
export const EVENT_STAGE = Object.freeze({
  /** 100. Record: the execution log, telemetry. */
  OBSERVE: 100,
  /** 200. React: the circuit breaker counts pi's MCP calls. */
  BREAKER: 200,
});

/** 500. The stage of a tap that names none, on every hook. */
export const DEFAULT_STAGE = 500;

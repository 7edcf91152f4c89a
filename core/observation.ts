import type { ContentBlock } from "./content.ts";
import { textContent } from "./content.ts";
import type { GovernorError } from "./errors.ts";
import { type ObservationStatus, withMeta, type ResultMeta } from "./result-meta.ts";

/**
 * How every governed tool call ends. A discriminated union on `status`, switched exhaustively
 * (see {@link assertNever}); a governed call never ends in an unhandled rejection.
 */
export type ToolObservation = SuccessObservation | TimeoutObservation | ErrorObservation;

interface ObservationBase {
  /** The governed tool's name, e.g. `kota_deps`. */
  toolName: string;
  /** Wall time of the whole call including retries, in milliseconds. */
  durationMs: number;
  /** Retries that ran (attempts - 1). */
  retries: number;
  /** What goes back to the model. */
  content: ContentBlock[];
  /** The tool's own structured data for the UI and logs (persisted by pi: keep it small). */
  details: Record<string, unknown>;
  /**
   * What the stages know about the result (budget, blob, retry, circuit, timeout), typed. Stages
   * replace it (`obs.meta = { ...obs.meta, retry }`), never mutate it; the pi adapter writes it into
   * pi's details with {@link observationDetails}.
   */
  meta: ResultMeta;
}

/** The tool answered. */
export interface SuccessObservation extends ObservationBase {
  status: "SUCCESS";
}

/** The tool did not answer within its limit; the model is told to reassess, not repeat. */
export interface TimeoutObservation extends ObservationBase {
  status: "TIMEOUT_EXCEEDED";
  /** The limit that expired, in milliseconds. */
  timeoutMs: number;
  /** Agent-facing text, e.g. `Tool exceeded the 300s timeout limit. Reassess strategy.` */
  message: string;
}

/** The tool failed; `error` says how, and whether trying again can help. */
export interface ErrorObservation extends ObservationBase {
  status: "ERROR";
  error: GovernorError;
  /** Agent-facing text. */
  message: string;
}

export type { ObservationStatus };

/** Compile-time exhaustiveness check for switches over {@link ObservationStatus}. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}

/** A SUCCESS observation. */
export function success(toolName: string, content: ContentBlock[], details: Record<string, unknown> = {}, durationMs = 0): SuccessObservation {
  return { status: "SUCCESS", toolName, durationMs, retries: 0, content, details, meta: {} };
}

/** An ERROR observation whose content is the error's agent-facing message. */
export function failure(toolName: string, error: GovernorError, durationMs = 0): ErrorObservation {
  const message = `${toolName} failed (${error.category}): ${error.message}. ${error.agentMessage}`;
  return {
    status: "ERROR",
    toolName,
    durationMs,
    retries: error.retried,
    error,
    message,
    content: textContent(message),
    // The error's JSON also in the details, where callers of the pipeline have always found it.
    details: { error: error.toJSON() },
    meta: {},
  };
}

/** Formats a limit in seconds for the agent-facing timeout message: 300000 -> "300s", 1500 -> "1.5s". */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
}

/** A TIMEOUT_EXCEEDED observation with the agent-facing message "Tool exceeded the 300s timeout limit. Reassess strategy." */
export function timedOut(toolName: string, timeoutMs: number, durationMs = timeoutMs): TimeoutObservation {
  const message = `Tool exceeded the ${formatSeconds(timeoutMs)} timeout limit. Reassess strategy.`;
  return {
    status: "TIMEOUT_EXCEEDED",
    toolName,
    durationMs,
    retries: 0,
    timeoutMs,
    message,
    content: textContent(`${toolName}: ${message} Do not repeat the same call unchanged; narrow it or try another approach.`),
    details: {},
    meta: { timeout: { limitMs: timeoutMs } },
  };
}

/**
 * The details pi stores for a governed result: the tool's details plus the observation's
 * {@link ToolObservation.meta}, its status and timing (`governor`) and its error, in the details
 * JSON shape ({@link withMeta}). The pi adapter's one mapping from an observation to pi.
 */
export function observationDetails(obs: ToolObservation): Record<string, unknown> {
  return withMeta(obs.details, {
    ...obs.meta,
    call: { status: obs.status, durationMs: obs.durationMs, retries: obs.retries },
    ...(obs.status === "ERROR" ? { error: obs.error.toJSON() } : {}),
  });
}

/**
 * One span per governed tool call (`execute_tool <name>`, GenAI semantic conventions), with events
 * for what the stages did, and the call metrics. Two wrappers share per-call state:
 *
 * - the call wrapper (outermost) opens the span, ends it with the final observation, records metrics;
 * - the attempt wrapper (between retry and the per-attempt timeout) sees every attempt: its outcome,
 *   its duration, the wait before it (the retry backoff) and a timeout.
 *
 * Events other plugins emit (breaker state, MCP reconnects) land on the spans of the calls in flight.
 * Nothing here can fail a call: span and metric calls are fire-and-forget, and an OTel SDK buffers
 * and exports off the call path.
 */
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace, type Attributes } from "@opentelemetry/api";
import type { Clock, ToolCallContext, ToolObservation, ToolWrapper } from "../../core/index.ts";
import { ATTR, EVENT, EXECUTE_TOOL, GEN_AI } from "./attributes.ts";
import type { Instruments } from "./instruments.ts";

/** What the span code needs besides tracer and instruments. */
export interface ToolSpanOptions {
  traces: boolean;
  metrics: boolean;
  captureContent: boolean;
  maxContentChars: number;
  /** Hides secrets in captured arguments and results before they are bounded and exported. Default: none. */
  redact?: (text: string) => string;
}

interface CallState {
  readonly span: Span;
  readonly toolName: string;
  lastAttemptEnd: number | undefined;
}

/** How many finished calls' span contexts are kept for result-shaping spans to link to. */
const RECENT_CALLS = 256;

/** Cuts `text` to `max` characters, saying how much was cut. */
export function boundText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more chars]`;
}

/** Longest call id exported, in characters: the provider chooses ids (pi's are ~40 characters). */
export const MAX_CALL_ID_CHARS = 128;

/**
 * A call id as exported: the provider's text, so redacted (its first 8 KiB, which holds all that is
 * kept) and cut to {@link MAX_CALL_ID_CHARS}.
 */
export function exportedCallId(id: string, redact?: (text: string) => string): string {
  const start = id.length > 8_192 ? id.slice(0, 8_192) : id;
  return boundText(redact ? redact(start) : start, MAX_CALL_ID_CHARS);
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[unserializable]";
  }
}

/** Error category of an observation: the error's category, "timeout", or undefined for success. */
export function errorTypeOf(obs: ToolObservation): string | undefined {
  return obs.status === "ERROR" ? obs.error.category : obs.status === "TIMEOUT_EXCEEDED" ? "timeout" : undefined;
}

/** The shared state and the two wrappers. */
export class ToolSpans {
  private readonly inFlight = new Map<string, CallState>();
  private readonly recent = new Map<string, Span>();

  constructor(
    private tracer: Tracer,
    private instruments: Instruments,
    private readonly clock: Clock,
    private readonly options: ToolSpanOptions,
  ) {}

  /** Records with `tracer` and `instruments` from now on (the exporter started or stopped). */
  retarget(tracer: Tracer, instruments: Instruments): void {
    this.tracer = tracer;
    this.instruments = instruments;
  }

  private redacted(text: string): string {
    return this.options.redact ? this.options.redact(text) : text;
  }

  private static key(call: ToolCallContext): string {
    return `${call.toolCallId}\u0000${call.startedAt}`;
  }

  /** The outermost wrapper: span and metrics per call. */
  readonly callWrapper: ToolWrapper = (next, tool) => {
    const { traces, metrics } = this.options;
    const toolAttrs = { [GEN_AI.TOOL_NAME]: tool.name };
    return async (call) => {
      if (!traces) {
        const obs = await next(call);
        if (metrics) this.recordMetrics(obs, this.clock.now() - call.startedAt, toolAttrs);
        return obs;
      }
      const attributes: Attributes = {
        [GEN_AI.OPERATION]: EXECUTE_TOOL,
        [GEN_AI.TOOL_NAME]: tool.name,
        [GEN_AI.TOOL_CALL_ID]: exportedCallId(call.toolCallId, this.options.redact),
        [GEN_AI.TOOL_TYPE]: "function",
        [ATTR.OWNER]: tool.owner,
      };
      if (call.sessionId) attributes[GEN_AI.CONVERSATION_ID] = call.sessionId;
      if (tool.description) attributes[GEN_AI.TOOL_DESCRIPTION] = boundText(tool.description, 256);
      if (this.options.captureContent) attributes[GEN_AI.TOOL_ARGUMENTS] = boundText(this.redacted(jsonText(call.args)), this.options.maxContentChars);
      const parent = context.active();
      const span = this.tracer.startSpan(`${EXECUTE_TOOL} ${tool.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
      // No SDK registered (the API's no-op tracer): nothing to record or propagate, skip the bookkeeping.
      if (!span.isRecording() && !trace.isSpanContextValid(span.spanContext())) {
        const obs = await next(call);
        if (metrics) this.recordMetrics(obs, this.clock.now() - call.startedAt, toolAttrs);
        return obs;
      }
      const key = ToolSpans.key(call);
      this.inFlight.set(key, { span, toolName: tool.name, lastAttemptEnd: undefined });
      let obs: ToolObservation;
      try {
        obs = await context.with(trace.setSpan(parent, span), next, undefined, call);
      } catch (error) {
        this.inFlight.delete(key);
        // The message may quote what the tool printed: redacted like every captured text.
        const e = error instanceof Error ? error : new Error(String(error));
        span.recordException({ name: e.name, message: this.redacted(e.message), ...(e.stack ? { stack: this.redacted(e.stack) } : {}) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: "unknown" });
        span.setAttribute(ATTR.ERROR_TYPE, "unknown");
        span.end();
        throw error;
      }
      this.inFlight.delete(key);
      const durationMs = this.clock.now() - call.startedAt;
      this.finishSpan(span, obs);
      if (call.toolCallId) this.remember(call.toolCallId, span);
      if (metrics) this.recordMetrics(obs, durationMs, toolAttrs);
      return obs;
    };
  };

  /** The per-attempt wrapper: one `pi_governor.attempt` event per attempt, and timeouts. */
  readonly attemptWrapper: ToolWrapper = (next, tool) => {
    const toolAttrs = { [GEN_AI.TOOL_NAME]: tool.name };
    return async (call) => {
      const state = this.inFlight.get(ToolSpans.key(call));
      const start = this.clock.now();
      const obs = await next(call);
      const status = obs.status;
      if (status === "TIMEOUT_EXCEEDED" && this.options.metrics) this.instruments.timeouts.add(1, toolAttrs);
      if (!state) return obs;
      const end = this.clock.now();
      const event: Attributes = { [ATTR.ATTEMPT]: call.attempt, [ATTR.STATUS]: status, [ATTR.DURATION_MS]: Math.round(end - start) };
      if (state.lastAttemptEnd !== undefined) event[ATTR.WAIT_MS] = Math.round(start - state.lastAttemptEnd);
      const errorType = errorTypeOf(obs);
      if (errorType) event[ATTR.ERROR_TYPE] = errorType;
      state.lastAttemptEnd = end;
      state.span.addEvent(EVENT.ATTEMPT, event);
      if (status === "TIMEOUT_EXCEEDED") state.span.addEvent(EVENT.TIMEOUT, { [ATTR.ATTEMPT]: call.attempt, [ATTR.TIMEOUT_MS]: obs.timeoutMs });
      return obs;
    };
  };

  /** Adds an event to every in-flight call span `matches` selects (by tool name). Returns how many. */
  addEventToInFlight(matches: (toolName: string) => boolean, name: string, attributes: Attributes): number {
    let n = 0;
    for (const state of this.inFlight.values()) {
      if (!matches(state.toolName)) continue;
      state.span.addEvent(name, attributes);
      n++;
    }
    return n;
  }

  /** The span of a recently finished call, by tool call id (for result-shaping spans to parent on). */
  recentSpan(toolCallId: string): Span | undefined {
    return this.recent.get(toolCallId);
  }

  private remember(toolCallId: string, span: Span): void {
    this.recent.set(toolCallId, span);
    if (this.recent.size > RECENT_CALLS) this.recent.delete(this.recent.keys().next().value!);
  }

  private finishSpan(span: Span, obs: ToolObservation): void {
    span.setAttribute(ATTR.STATUS, obs.status);
    span.setAttribute(ATTR.RETRIES, obs.retries);
    const errorType = errorTypeOf(obs);
    if (errorType) {
      span.setAttribute(ATTR.ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    const { retry, budget } = obs.meta ?? {};
    if (retry?.stoppedBy) span.setAttribute(ATTR.RETRY_STOPPED_BY, retry.stoppedBy);
    if (budget) span.setAttribute(ATTR.BUDGET_MAX_BYTES, budget.maxBytes);
    if (budget?.downshift) {
      budget.downshift.forEach((step, i) => {
        const attrs: Attributes = { [ATTR.BUDGET_STEP]: i, [ATTR.BUDGET_CHANGE]: step.change };
        if (step.bytes !== null) attrs[ATTR.BUDGET_BYTES] = step.bytes;
        span.addEvent(EVENT.BUDGET_DOWNSHIFT, attrs);
      });
      span.setAttribute(ATTR.BUDGET_FITTED, budget.fitted === true);
    }
    if (this.options.captureContent) {
      const text = obs.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
      span.setAttribute(GEN_AI.TOOL_RESULT, boundText(this.redacted(text), this.options.maxContentChars));
    }
    span.end();
  }

  private recordMetrics(obs: ToolObservation, durationMs: number, toolAttrs: Attributes): void {
    const { calls, errors, retries, duration } = this.instruments;
    const withStatus = { ...toolAttrs, [ATTR.STATUS]: obs.status };
    calls.add(1, withStatus);
    duration.record(durationMs / 1000, withStatus);
    const errorType = errorTypeOf(obs);
    if (errorType) errors.add(1, { ...toolAttrs, [ATTR.ERROR_TYPE]: errorType });
    if (obs.retries > 0) retries.add(obs.retries, toolAttrs);
  }
}

/**
 * `governor:telemetry` (config key `telemetry`, off by default): a session's governed tool calls and
 * context requests as OpenTelemetry spans and metrics.
 *
 * - Records through `@opentelemetry/api` only: a no-op unless a provider is registered, so a process
 *   that already runs an OpenTelemetry SDK gets the spans in its own pipeline.
 * - With `export: true` (user config) it loads the SDK lazily and exports over OTLP/HTTP (JSON) to
 *   `endpoint` / the `OTEL_EXPORTER_OTLP_*` variables; spans are batched and sent off the call path,
 *   so an unreachable collector never slows or fails a tool call. Session shutdown flushes with a
 *   bounded wait (`flushTimeoutMs`).
 * - Spans: `execute_tool <name>` per governed call (GenAI conventions) with attempt, timeout, breaker,
 *   budget downshift and MCP events; `pi_governor.shape_result <name>` when a result was cut to a blob;
 *   `pi_governor.context` per model request (tokens before and after pruning, whether the cached
 *   prefix broke). No arguments or outputs unless `captureContent` is on, and then bounded.
 * docs/telemetry.md lists every name.
 */
import { packageVersion } from "../../lib/package/index.ts";
import { context, metrics, trace, type Attributes, SpanKind, type Tracer } from "@opentelemetry/api";
import {
  type Clock,
  CONTEXT_STAGE,
  type ContextInfo,
  definePlugin,
  EVENT_STAGE,
  LIFECYCLE_STAGE,
  type Logger,
  type PipelineEvent,
  RESULT_STAGE,
  TOOL_STAGE,
  type ToolResultValue,
} from "../../core/index.ts";
import { ATTR, EVENT, GEN_AI, SPAN } from "./attributes.ts";
import { telemetryDefaults, type TelemetryOptions, telemetrySchema } from "./config.ts";
import { type RunningExport, startExport } from "./export.ts";
import { createInstruments, type Instruments } from "./instruments.ts";
import { exportedCallId, ToolSpans } from "./tool-spans.ts";
import { redactorForWrites } from "../../lib/redact/index.ts";
import { REDACTOR } from "../redact/index.ts";

export { telemetryDefaults, telemetrySchema, type TelemetryOptions } from "./config.ts";
export { resolveExportTarget, parseOtlpHeaders, startExport, DEFAULT_OTLP_ENDPOINT, type ExportTarget, type RunningExport } from "./export.ts";
export { ATTR, EVENT, GEN_AI, METRIC, SPAN, EXECUTE_TOOL } from "./attributes.ts";
export { ToolSpans, boundText, errorTypeOf } from "./tool-spans.ts";

/** Plugin name, as taps, logs and errors show it. */
export const TELEMETRY_PLUGIN = "governor:telemetry";

/** Outside every other wrapper (the execution log included), so the span covers the whole call. */
export const TELEMETRY_CALL_STAGE = TOOL_STAGE.OBSERVE - 10;
/** Between retry and the per-attempt timeout: sees each attempt and the wait before it. */
export const TELEMETRY_ATTEMPT_STAGE = TOOL_STAGE.RETRY + 50;

/** The telemetry plugin factory: `telemetry()` or `telemetry({ enabled: true, export: true })`. */
export const telemetry = definePlugin({
  name: TELEMETRY_PLUGIN,
  configKey: "telemetry",
  description: "OpenTelemetry spans and metrics for governed tool calls and context requests; optional OTLP/HTTP export to a team's collector.",
  schema: telemetrySchema,
  defaults: telemetryDefaults,
  enabledByDefault: false,
  // Where session data goes, with which credentials, and whether code and outputs go with it, is the user's choice.
  trustedKeys: ["endpoint", "headers", "captureContent"],
  optional: [REDACTOR],
  // With content capture on (the user's choice), turning telemetry or its export on decides that
  // tool arguments and outputs leave the machine: then only the user may.
  trustedKeysWhen: (trusted) => (trusted.captureContent === true ? ["enabled", "export"] : []),
  async apply(pipeline, config, services) {
    if (!config.traces && !config.metrics) return;
    // What leaves the machine is redacted whatever the config: by the session's redactor (it knows
    // the servers' env values), else by the built-in rules.
    const redactor = redactorForWrites(services.maybe(REDACTOR));
    const out = new TelemetryOutput(config as TelemetryOptions, services, (text) => redactor.redact(text));
    await out.start();
    const { spans } = out;

    pipeline.hooks.toolCall.tap({ name: TELEMETRY_PLUGIN, stage: TELEMETRY_CALL_STAGE }, spans.callWrapper);
    pipeline.hooks.toolCall.tap({ name: TELEMETRY_PLUGIN, stage: TELEMETRY_ATTEMPT_STAGE }, spans.attemptWrapper);
    const requests = new ContextSpans(config, out);
    pipeline.hooks.event.tap({ name: TELEMETRY_PLUGIN, stage: EVENT_STAGE.OBSERVE }, (event) => onEvent(event, config, out, requests));
    // After blobs cut a result (SHAPE) and pins marked it: one span per result stored out of context.
    pipeline.hooks.toolResult.tap({ name: TELEMETRY_PLUGIN, stage: RESULT_STAGE.OBSERVE }, (value) => {
      shapedResultSpan(value, config, out, (text) => redactor.redact(text));
      return undefined;
    });
    // One span per model request: opened before pruning, closed after it with what pruning reported.
    pipeline.hooks.context.tap({ name: TELEMETRY_PLUGIN, stage: CONTEXT_STAGE.MEASURE_BEFORE }, (messages) => requests.open(messages));
    pipeline.hooks.context.tap({ name: TELEMETRY_PLUGIN, stage: CONTEXT_STAGE.MEASURE_AFTER }, (messages, info) => requests.close(messages, info));

    // Shutdown sends what is buffered (bounded) and stops the exporters' timers: a governor that pi
    // discards (reload, another cwd) leaves nothing running. A session that starts again re-exports.
    pipeline.hooks.sessionShutdown.tap({ name: TELEMETRY_PLUGIN, stage: LIFECYCLE_STAGE.OBSERVE }, () => out.stop());
    pipeline.hooks.sessionStart.tap({ name: TELEMETRY_PLUGIN, stage: LIFECYCLE_STAGE.OBSERVE }, () => out.start());
  },
});

/**
 * Where spans and metrics go: the API's tracer and meter (a no-op unless the process registered a
 * provider), or the OTLP exporter's while one runs (`export: true`).
 */
class TelemetryOutput {
  private readonly version = packageVersion();
  private readonly apiTracer: Tracer;
  private readonly apiInstruments: Instruments;
  tracer: Tracer;
  instruments: Instruments;
  readonly spans: ToolSpans;
  private running: RunningExport | undefined;
  private exportFailed = false;

  constructor(
    private readonly config: TelemetryOptions,
    private readonly services: { env: NodeJS.ProcessEnv; logger: Logger; clock: Clock },
    redact: (text: string) => string,
  ) {
    this.apiTracer = trace.getTracer("pi-governor", this.version);
    this.apiInstruments = createInstruments(metrics.getMeter("pi-governor", this.version));
    this.tracer = this.apiTracer;
    this.instruments = this.apiInstruments;
    this.spans = new ToolSpans(this.tracer, this.instruments, services.clock, { ...config, redact });
  }

  /** Starts the exporter (again after a session shutdown stopped it); a failure is one warning, then API-only. */
  async start(): Promise<void> {
    if (!this.config.export || this.running || this.exportFailed) return;
    try {
      this.running = await startExport(this.config, this.services.env, this.version);
      this.services.logger.info(`telemetry: exporting over OTLP/HTTP to ${this.running.target.tracesUrl}`);
    } catch (error) {
      this.exportFailed = true;
      this.services.logger.warn(`telemetry: export is off: ${(error as Error).message}`);
      return;
    }
    this.tracer = this.running.tracer;
    this.instruments = createInstruments(this.running.meter);
    this.spans.retarget(this.tracer, this.instruments);
  }

  /** Back to the API's tracer and meter; flushes and stops the exporter (bounded by `flushTimeoutMs`). */
  async stop(): Promise<void> {
    const stopping = this.running;
    this.running = undefined;
    this.tracer = this.apiTracer;
    this.instruments = this.apiInstruments;
    this.spans.retarget(this.tracer, this.instruments);
    await stopping?.shutdown(this.config.flushTimeoutMs);
  }
}

/** One `pi_governor.shape_result` span, and the bytes kept out, for a result blobs cut. */
function shapedResultSpan(value: ToolResultValue, config: TelemetryOptions, out: TelemetryOutput, redact: (text: string) => string): void {
  const d = value.details as { truncated?: unknown; originalBytes?: unknown; excerptBytes?: unknown; blobId?: unknown } | undefined;
  if (d?.truncated !== true || typeof d.originalBytes !== "number" || typeof d.excerptBytes !== "number") return;
  const toolAttrs = { [GEN_AI.TOOL_NAME]: value.toolName };
  if (config.metrics) out.instruments.bytesKeptOut.add(Math.max(0, d.originalBytes - d.excerptBytes), toolAttrs);
  if (!config.traces) return;
  const parent = out.spans.recentSpan(value.toolCallId);
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  const attrs: Attributes = {
    ...toolAttrs,
    [GEN_AI.TOOL_CALL_ID]: exportedCallId(value.toolCallId, redact),
    [ATTR.BYTES_IN]: d.originalBytes,
    [ATTR.BYTES_OUT]: d.excerptBytes,
  };
  if (typeof d.blobId === "string") attrs[ATTR.BLOB_ID] = d.blobId;
  const span = out.tracer.startSpan(`${SPAN.SHAPE} ${value.toolName}`, { kind: SpanKind.INTERNAL, attributes: attrs }, ctx);
  span.addEvent(EVENT.BLOB_STORED, attrs);
  span.end();
}

/** The `pi_governor.context` span of each model request, with what pruning reported in between. */
class ContextSpans {
  private start: { at: number; messages: number } | undefined;
  /** The `context_pruned` event's data of the request in progress. */
  lastPrune: Record<string, unknown> | undefined;

  constructor(
    private readonly config: TelemetryOptions,
    private readonly out: TelemetryOutput,
  ) {}

  open(messages: readonly unknown[]): undefined {
    this.start = { at: Date.now(), messages: messages.length };
    this.lastPrune = undefined;
    return undefined;
  }

  close(messages: readonly unknown[], info: ContextInfo): undefined {
    const start = this.start;
    this.start = undefined;
    const report = this.lastPrune;
    this.lastPrune = undefined;
    const before = typeof report?.rawTokens === "number" ? report.rawTokens : undefined;
    const after = typeof report?.sentTokens === "number" ? report.sentTokens : undefined;
    if (this.config.metrics && before !== undefined && after !== undefined && before > after) this.out.instruments.tokensKeptOut.add(before - after);
    if (!this.config.traces) return undefined;
    const attrs: Attributes = { [ATTR.MESSAGES]: messages.length };
    if (info.sessionId) attrs[GEN_AI.CONVERSATION_ID] = info.sessionId;
    if (before !== undefined) attrs[ATTR.TOKENS_BEFORE] = before;
    if (after !== undefined) attrs[ATTR.TOKENS_AFTER] = after;
    if (typeof report?.stepped === "boolean") attrs[ATTR.PREFIX_BROKEN] = report.stepped;
    if (typeof report?.placeholders === "number") attrs[ATTR.PLACEHOLDERS] = report.placeholders;
    if (typeof report?.mode === "string") attrs[ATTR.CONTEXT_MODE] = report.mode;
    this.out.tracer.startSpan(SPAN.CONTEXT, { kind: SpanKind.INTERNAL, attributes: attrs, ...(start ? { startTime: start.at } : {}) }, context.active()).end();
    return undefined;
  }
}

/** Breaker, pruning and MCP events: events on the calls in flight, metrics, pruning's report for the request span. */
function onEvent(event: PipelineEvent, config: TelemetryOptions, out: TelemetryOutput, requests: ContextSpans): void {
  if (event.type !== "custom") return;
  const data = event.data ?? {};
  if (event.name === "circuit_open" || event.name === "circuit_closed") {
    const state = event.name === "circuit_open" ? "open" : "closed";
    if (state === "open" && config.metrics) out.instruments.breakerOpens.add(1, { [ATTR.CIRCUIT_KEY]: String(data.key ?? "") });
    const toolName = String(data.toolName ?? "");
    out.spans.addEventToInFlight((name) => name === toolName, EVENT.CIRCUIT, {
      [ATTR.CIRCUIT_STATE]: state,
      [ATTR.CIRCUIT_KEY]: String(data.key ?? ""),
      ...(typeof data.category === "string" ? { [ATTR.ERROR_TYPE]: data.category } : {}),
    });
  } else if (event.name === "context_pruned") {
    requests.lastPrune = data;
  } else if (event.name.startsWith("mcp_") && typeof data.server === "string") {
    const server = data.server;
    const kind = event.name.slice(4);
    if (kind === "recovered" && config.metrics) out.instruments.mcpReconnects.add(1, { [ATTR.MCP_SERVER]: server });
    if (kind === "state" && data.to !== "reconnecting") return;
    const attrs: Attributes = { [ATTR.MCP_SERVER]: server, [ATTR.MCP_EVENT]: kind };
    if (typeof data.attempts === "number") attrs[ATTR.MCP_ATTEMPTS] = data.attempts;
    if (typeof data.durationMs === "number") attrs[ATTR.DURATION_MS] = Math.round(data.durationMs);
    if (typeof data.category === "string") attrs[ATTR.ERROR_TYPE] = data.category;
    // MCP tools are named <server>_<tool>.
    out.spans.addEventToInFlight((name) => name.startsWith(`${server}_`), EVENT.MCP, attrs);
  }
}

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
import { context, metrics, trace, type Attributes, SpanKind } from "@opentelemetry/api";
import { CONTEXT_STAGE, definePlugin, EVENT_STAGE, LIFECYCLE_STAGE, RESULT_STAGE, TOOL_STAGE, type PipelineEvent } from "../../core/sdk.ts";
import { ATTR, EVENT, GEN_AI, SPAN } from "./attributes.ts";
import { telemetryDefaults, type TelemetryOptions, telemetrySchema } from "./config.ts";
import { type RunningExport, startExport } from "./export.ts";
import { createInstruments } from "./instruments.ts";
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
    const logger = services.logger;
    if (!config.traces && !config.metrics) return;
    const version = packageVersion();
    let running: RunningExport | undefined;
    let exportFailed = false;
    const apiTracer = trace.getTracer("pi-governor", version);
    const apiInstruments = createInstruments(metrics.getMeter("pi-governor", version));
    let tracer = apiTracer;
    let instruments = apiInstruments;
    // What leaves the machine is redacted whatever the config: by the session's redactor (it knows
    // the servers' env values), else by the built-in rules.
    const redactor = redactorForWrites(services.maybe(REDACTOR));
    const spans = new ToolSpans(tracer, instruments, services.clock, { ...config, redact: (text: string) => redactor.redact(text) });
    /** Starts the exporter (again after a session shutdown stopped it); a failure is one warning, then API-only. */
    const startExporting = async (): Promise<void> => {
      if (!config.export || running || exportFailed) return;
      try {
        running = await startExport(config as TelemetryOptions, services.env, version);
        logger.info(`telemetry: exporting over OTLP/HTTP to ${running.target.tracesUrl}`);
      } catch (error) {
        exportFailed = true;
        logger.warn(`telemetry: export is off: ${(error as Error).message}`);
        return;
      }
      tracer = running.tracer;
      instruments = createInstruments(running.meter);
      spans.retarget(tracer, instruments);
    };
    await startExporting();

    pipeline.hooks.toolCall.tap({ name: TELEMETRY_PLUGIN, stage: TELEMETRY_CALL_STAGE }, spans.callWrapper);
    pipeline.hooks.toolCall.tap({ name: TELEMETRY_PLUGIN, stage: TELEMETRY_ATTEMPT_STAGE }, spans.attemptWrapper);

    pipeline.hooks.event.tap({ name: TELEMETRY_PLUGIN, stage: EVENT_STAGE.OBSERVE }, (event) => onEvent(event));

    // After blobs cut a result (SHAPE) and pins marked it: one span per result stored out of context.
    pipeline.hooks.toolResult.tap({ name: TELEMETRY_PLUGIN, stage: RESULT_STAGE.OBSERVE }, (value) => {
      const d = value.details as { truncated?: unknown; originalBytes?: unknown; excerptBytes?: unknown; blobId?: unknown } | undefined;
      if (d?.truncated !== true || typeof d.originalBytes !== "number" || typeof d.excerptBytes !== "number") return undefined;
      const toolAttrs = { [GEN_AI.TOOL_NAME]: value.toolName };
      if (config.metrics) instruments.bytesKeptOut.add(Math.max(0, d.originalBytes - d.excerptBytes), toolAttrs);
      if (!config.traces) return undefined;
      const parent = spans.recentSpan(value.toolCallId);
      const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
      const attrs: Attributes = {
        ...toolAttrs,
        [GEN_AI.TOOL_CALL_ID]: exportedCallId(value.toolCallId, (text) => redactor.redact(text)),
        [ATTR.BYTES_IN]: d.originalBytes,
        [ATTR.BYTES_OUT]: d.excerptBytes,
      };
      if (typeof d.blobId === "string") attrs[ATTR.BLOB_ID] = d.blobId;
      const span = tracer.startSpan(`${SPAN.SHAPE} ${value.toolName}`, { kind: SpanKind.INTERNAL, attributes: attrs }, ctx);
      span.addEvent(EVENT.BLOB_STORED, attrs);
      span.end();
      return undefined;
    });

    // One span per model request: opened before pruning, closed after it with what pruning reported.
    let contextStart: { at: number; messages: number } | undefined;
    let lastPrune: Record<string, unknown> | undefined;
    pipeline.hooks.context.tap({ name: TELEMETRY_PLUGIN, stage: CONTEXT_STAGE.MEASURE_BEFORE }, (messages) => {
      contextStart = { at: Date.now(), messages: messages.length };
      lastPrune = undefined;
      return undefined;
    });
    pipeline.hooks.context.tap({ name: TELEMETRY_PLUGIN, stage: CONTEXT_STAGE.MEASURE_AFTER }, (messages, info) => {
      const start = contextStart;
      contextStart = undefined;
      const report = lastPrune;
      lastPrune = undefined;
      const before = typeof report?.rawTokens === "number" ? report.rawTokens : undefined;
      const after = typeof report?.sentTokens === "number" ? report.sentTokens : undefined;
      if (config.metrics && before !== undefined && after !== undefined && before > after) instruments.tokensKeptOut.add(before - after);
      if (!config.traces) return undefined;
      const attrs: Attributes = { [ATTR.MESSAGES]: messages.length };
      if (info.sessionId) attrs[GEN_AI.CONVERSATION_ID] = info.sessionId;
      if (before !== undefined) attrs[ATTR.TOKENS_BEFORE] = before;
      if (after !== undefined) attrs[ATTR.TOKENS_AFTER] = after;
      if (typeof report?.stepped === "boolean") attrs[ATTR.PREFIX_BROKEN] = report.stepped;
      if (typeof report?.placeholders === "number") attrs[ATTR.PLACEHOLDERS] = report.placeholders;
      if (typeof report?.mode === "string") attrs[ATTR.CONTEXT_MODE] = report.mode;
      tracer.startSpan(SPAN.CONTEXT, { kind: SpanKind.INTERNAL, attributes: attrs, ...(start ? { startTime: start.at } : {}) }, context.active()).end();
      return undefined;
    });

    // Shutdown sends what is buffered (bounded) and stops the exporters' timers: a governor that pi
    // discards (reload, another cwd) leaves nothing running. A session that starts again re-exports.
    pipeline.hooks.sessionShutdown.tap({ name: TELEMETRY_PLUGIN, stage: LIFECYCLE_STAGE.OBSERVE }, async () => {
      const stopping = running;
      running = undefined;
      tracer = apiTracer;
      instruments = apiInstruments;
      spans.retarget(tracer, instruments);
      await stopping?.shutdown(config.flushTimeoutMs);
    });
    pipeline.hooks.sessionStart.tap({ name: TELEMETRY_PLUGIN, stage: LIFECYCLE_STAGE.OBSERVE }, () => startExporting());

    function onEvent(event: PipelineEvent): void {
      if (event.type !== "custom") return;
      const data = event.data ?? {};
      if (event.name === "circuit_open" || event.name === "circuit_closed") {
        const state = event.name === "circuit_open" ? "open" : "closed";
        if (state === "open" && config.metrics) instruments.breakerOpens.add(1, { [ATTR.CIRCUIT_KEY]: String(data.key ?? "") });
        const toolName = String(data.toolName ?? "");
        spans.addEventToInFlight((name) => name === toolName, EVENT.CIRCUIT, {
          [ATTR.CIRCUIT_STATE]: state,
          [ATTR.CIRCUIT_KEY]: String(data.key ?? ""),
          ...(typeof data.category === "string" ? { [ATTR.ERROR_TYPE]: data.category } : {}),
        });
      } else if (event.name === "context_pruned") {
        lastPrune = data;
      } else if (event.name.startsWith("mcp_") && typeof data.server === "string") {
        const server = data.server;
        const kind = event.name.slice(4);
        if (kind === "recovered" && config.metrics) instruments.mcpReconnects.add(1, { [ATTR.MCP_SERVER]: server });
        if (kind === "state" && data.to !== "reconnecting") return;
        const attrs: Attributes = { [ATTR.MCP_SERVER]: server, [ATTR.MCP_EVENT]: kind };
        if (typeof data.attempts === "number") attrs[ATTR.MCP_ATTEMPTS] = data.attempts;
        if (typeof data.durationMs === "number") attrs[ATTR.DURATION_MS] = Math.round(data.durationMs);
        if (typeof data.category === "string") attrs[ATTR.ERROR_TYPE] = data.category;
        // MCP tools are named <server>_<tool>.
        spans.addEventToInFlight((name) => name.startsWith(`${server}_`), EVENT.MCP, attrs);
      }
    }
  },
});

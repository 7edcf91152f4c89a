/**
 * The `telemetry` config section: schema and defaults in one place.
 *
 * ```json
 * { "telemetry": { "enabled": true, "export": true, "endpoint": "https://otel.example.com:4318", "headers": { "x-team": "infra" } } }
 * ```
 */
import { z } from "zod";
import { MAX_PATH_CHARS, MAX_TOOL_NAME_CHARS, pathSchema, textSchema } from "../../lib/config/index.ts";

/** The schema of the `telemetry` section (without `enabled`, which definePlugin adds). */
export const telemetrySchema = z.object({
  export: z
    .boolean()
    .describe(
      "Start an OTLP/HTTP (JSON) exporter for spans and metrics. Off: spans and metrics go through @opentelemetry/api only, i.e. into the OpenTelemetry SDK the embedding process registered, or nowhere. Default false.",
    ),
  endpoint: pathSchema().describe(
    'OTLP/HTTP base URL of the collector (`/v1/traces` and `/v1/metrics` are appended). "" = OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (used as is), else OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318. Default "".',
  ),
  headers: z
    .record(z.string().min(1).max(MAX_TOOL_NAME_CHARS), textSchema(MAX_PATH_CHARS))
    .refine((o) => Object.keys(o).length <= 64, { message: "at most 64 entries" })
    .meta({ maxProperties: 64 })
    .describe("HTTP headers sent with every export (e.g. an API key), over the ones in OTEL_EXPORTER_OTLP_HEADERS. Default {}."),
  serviceName: z.string().max(MAX_TOOL_NAME_CHARS).describe('Resource attribute service.name; "" = OTEL_SERVICE_NAME, else "pi-governor". Default "".'),
  traces: z.boolean().describe("Record spans (one per governed tool call, one per context request). Default true."),
  metrics: z
    .boolean()
    .describe("Record metrics (calls, errors, retries, timeouts, breaker opens, durations, bytes and tokens kept out of the context). Default true."),
  captureContent: z
    .boolean()
    .describe(
      "Put tool arguments and results on spans (gen_ai.tool.call.arguments / gen_ai.tool.call.result), cut to maxContentChars. They may hold code and secrets. Default false.",
    ),
  maxContentChars: z.number().int().min(0).max(65_536).describe("Longest argument or result text on a span with captureContent, in characters. Default 2000."),
  exportTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60_000)
    .describe("Longest one export request may take, in milliseconds; an unreachable collector costs at most this, off the call path. Default 5000."),
  flushTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .describe("Longest wait for pending spans and metrics when the session shuts down, in milliseconds. Default 1000."),
  metricIntervalMs: z.number().int().min(1_000).max(3_600_000).describe("Interval between metric exports, in milliseconds. Default 60000."),
  maxQueueSize: z.number().int().min(1).max(100_000).describe("Finished spans buffered for export; beyond it new spans are dropped. Default 2048."),
});

/** The `telemetry` options (without `enabled`). */
export type TelemetryOptions = z.infer<typeof telemetrySchema>;

/** Defaults for the `telemetry` section. */
export const telemetryDefaults: TelemetryOptions = {
  export: false,
  endpoint: "",
  headers: {},
  serviceName: "",
  traces: true,
  metrics: true,
  captureContent: false,
  maxContentChars: 2_000,
  exportTimeoutMs: 5_000,
  flushTimeoutMs: 1_000,
  metricIntervalMs: 60_000,
  maxQueueSize: 2_048,
};

/**
 * The plugin's own OTLP/HTTP export, started only when the user's config says `export: true`. The
 * OpenTelemetry SDK and exporters load here by dynamic import, so a session with export off never
 * loads them. The providers are private to the plugin, never registered as the process's global
 * ones: an embedder's own SDK keeps its place.
 */
import type { Meter, Tracer } from "@opentelemetry/api";
import type { TelemetryOptions } from "./config.ts";

/** Where and how to send, after config and environment are combined. */
export interface ExportTarget {
  tracesUrl: string;
  metricsUrl: string;
  headers: Record<string, string>;
  serviceName: string;
}

/** The running export: the tracer and meter to record with, and a bounded flush. */
export interface RunningExport {
  tracer: Tracer;
  meter: Meter;
  target: ExportTarget;
  /** Sends what is buffered; resolves after at most `timeoutMs` (milliseconds) whatever the collector does. */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes (bounded like flush) and stops the exporters' timers. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** The default collector address of the OTLP/HTTP specification. */
export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";

/** The npm packages export needs, as the install hint names them. */
export const EXPORT_PACKAGES = [
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/resources",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/exporter-metrics-otlp-http",
] as const;

/**
 * Parses `OTEL_EXPORTER_OTLP_HEADERS` syntax: `key1=value1,key2=value2`, values URL-encoded. Entries
 * without `=` or with an empty key are skipped.
 */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    if (!key) continue;
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // a stray % stays as written
    }
    out[key] = value;
  }
  return out;
}

function signalUrl(base: string, signal: "traces" | "metrics"): string {
  return `${base.replace(/\/+$/, "")}/v1/${signal}`;
}

/**
 * Combines config and environment the way the OTLP exporter specification does: a signal-specific
 * endpoint variable is used as is, the generic one gets `/v1/<signal>` appended; config wins over both.
 * Headers: generic env, then signal env (traces), then config.
 */
export function resolveExportTarget(
  options: Pick<TelemetryOptions, "endpoint" | "headers" | "serviceName">,
  env: Readonly<Record<string, string | undefined>>,
): ExportTarget {
  const base = options.endpoint || env.OTEL_EXPORTER_OTLP_ENDPOINT || DEFAULT_OTLP_ENDPOINT;
  const tracesUrl = options.endpoint ? signalUrl(base, "traces") : env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || signalUrl(base, "traces");
  const metricsUrl = options.endpoint ? signalUrl(base, "metrics") : env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || signalUrl(base, "metrics");
  for (const url of [tracesUrl, metricsUrl]) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`telemetry endpoint "${url}" is not a URL; set telemetry.endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT) to e.g. http://localhost:4318`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new Error(`telemetry endpoint "${url}" must use http or https (OTLP/HTTP); e.g. http://localhost:4318`);
    }
  }
  return {
    tracesUrl,
    metricsUrl,
    headers: { ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS), ...options.headers },
    serviceName: options.serviceName || env.OTEL_SERVICE_NAME || "pi-governor",
  };
}

/** Resolves after `ms` milliseconds on an unref'd timer (never holds the process open). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Waits for `work` at most `ms` milliseconds; its failure is swallowed (a collector problem is no session problem). */
export async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  await Promise.race([work.then(undefined, () => undefined), delay(ms)]);
}

/**
 * Loads the SDK and starts the exporters. Rejects with an install hint when the packages are missing.
 * `version` goes on the instrumentation scope.
 */
export async function startExport(options: TelemetryOptions, env: Readonly<Record<string, string | undefined>>, version: string): Promise<RunningExport> {
  const target = resolveExportTarget(options, env);
  let modules;
  try {
    modules = await Promise.all([
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/exporter-metrics-otlp-http"),
    ]);
  } catch (error) {
    throw new Error(
      `telemetry export needs the OpenTelemetry SDK (${(error as Error).message}); install it beside pi-governor: npm install ${EXPORT_PACKAGES.join(" ")}`,
    );
  }
  const [traceSdk, metricsSdk, resources, traceExporter, metricsExporter] = modules;
  const resource = resources.resourceFromAttributes({ "service.name": target.serviceName, "telemetry.sdk.name": "opentelemetry", "service.version": version });
  const common = { headers: target.headers, timeoutMillis: options.exportTimeoutMs };
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    spanProcessors: options.traces
      ? [
          new traceSdk.BatchSpanProcessor(new traceExporter.OTLPTraceExporter({ ...common, url: target.tracesUrl }), {
            maxQueueSize: options.maxQueueSize,
            maxExportBatchSize: Math.min(512, options.maxQueueSize),
            scheduledDelayMillis: 1_000,
            exportTimeoutMillis: options.exportTimeoutMs,
          }),
        ]
      : [],
  });
  const meterProvider = new metricsSdk.MeterProvider({
    resource,
    readers: options.metrics
      ? [
          new metricsSdk.PeriodicExportingMetricReader({
            exporter: new metricsExporter.OTLPMetricExporter({ ...common, url: target.metricsUrl }),
            exportIntervalMillis: options.metricIntervalMs,
            exportTimeoutMillis: Math.min(options.exportTimeoutMs, options.metricIntervalMs),
          }),
        ]
      : [],
  });
  const flushBoth = () => Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
  return {
    tracer: tracerProvider.getTracer("pi-governor", version),
    meter: meterProvider.getMeter("pi-governor", version),
    target,
    flush: (ms) => bounded(flushBoth(), ms),
    shutdown: (ms) => bounded(Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]), ms),
  };
}

/**
 * An in-memory OpenTelemetry SDK registered globally, as an embedder's would be: spans into an
 * InMemorySpanExporter, metrics into a pull reader. `install()` registers it; `uninstall()` removes
 * and shuts it down (call in afterAll).
 */
import { metrics, trace } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export class OtelRecorder {
  readonly spans = new InMemorySpanExporter();
  private readonly reader = new PullReader();
  private readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spans)] });
  private readonly meterProvider = new MeterProvider({ readers: [this.reader] });

  install(): void {
    trace.setGlobalTracerProvider(this.tracerProvider);
    metrics.setGlobalMeterProvider(this.meterProvider);
  }

  async uninstall(): Promise<void> {
    trace.disable();
    metrics.disable();
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }

  /** The metrics recorded so far (cumulative). */
  async metrics(): Promise<ResourceMetrics> {
    return ((await this.reader.collect()) as { resourceMetrics: ResourceMetrics }).resourceMetrics;
  }

  /** Sums a counter's (or a histogram's count's) data points whose attributes include `where`. */
  async sum(name: string, where: Record<string, unknown> = {}): Promise<number> {
    let sum = 0;
    for (const scope of (await this.metrics()).scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.descriptor.name !== name) continue;
        for (const point of metric.dataPoints) {
          if (!Object.entries(where).every(([k, v]) => point.attributes[k] === v)) continue;
          const value = point.value as number | { count: number };
          sum += typeof value === "number" ? value : value.count;
        }
      }
    }
    return sum;
  }
}

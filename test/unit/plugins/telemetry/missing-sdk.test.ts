/**
 * Export on without the optional SDK packages installed: the import failure (simulated here, the one
 * mock in these tests) becomes an error naming the packages to install, and the plugin runs on
 * API-only with that one warning.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("@opentelemetry/exporter-trace-otlp-http", () => {
  throw new Error("Cannot find package '@opentelemetry/exporter-trace-otlp-http'");
});

describe("telemetry export without the SDK installed", () => {
  it("says which packages to install", async () => {
    const { startExport, telemetryDefaults } = await import("../../../../plugins/telemetry/index.ts");
    const error = (await startExport({ ...telemetryDefaults, export: true }, {}, "0.0.0").then(
      () => undefined,
      (e: Error) => e,
    )) as Error;
    expect(error.message).toMatch(/^telemetry export needs the OpenTelemetry SDK/);
    expect(error.message).toContain("exporter-trace-otlp-http");
    expect(error.message).toContain(
      "install it beside pi-governor: npm install @opentelemetry/sdk-trace-base @opentelemetry/sdk-metrics @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http @opentelemetry/exporter-metrics-otlp-http",
    );
  });
});

/**
 * The OTLP export: endpoint and headers from config and the standard environment variables, bad
 * endpoints refused with a fix, and a collector that hangs or is down never failing a call or
 * holding session shutdown past its bound.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { definePlugin, definePreset, textContent, type Governor } from "pi-governor";
import { parseOtlpHeaders, resolveExportTarget, telemetry } from "../../../../plugins/telemetry/index.ts";
import { closedPort, startBlackhole, startOtlpReceiver } from "../../../helpers/otlp-receiver.ts";

const base = { endpoint: "", headers: {}, serviceName: "" };

describe("telemetry export target", () => {
  it("defaults to the OTLP/HTTP default collector", () => {
    expect(resolveExportTarget(base, {})).toEqual({
      tracesUrl: "http://localhost:4318/v1/traces",
      metricsUrl: "http://localhost:4318/v1/metrics",
      headers: {},
      serviceName: "pi-governor",
    });
  });

  it("appends the signal path to OTEL_EXPORTER_OTLP_ENDPOINT, uses the signal variables as they are, and config wins over both", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com:4318/",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/custom",
      OTEL_SERVICE_NAME: "team-pi",
    };
    expect(resolveExportTarget(base, env)).toMatchObject({
      tracesUrl: "https://traces.example.com/custom",
      metricsUrl: "https://otel.example.com:4318/v1/metrics",
      serviceName: "team-pi",
    });
    expect(resolveExportTarget({ ...base, endpoint: "http://collector:4318", serviceName: "mine" }, env)).toMatchObject({
      tracesUrl: "http://collector:4318/v1/traces",
      metricsUrl: "http://collector:4318/v1/metrics",
      serviceName: "mine",
    });
  });

  it("merges headers: OTEL_EXPORTER_OTLP_HEADERS, then the traces variable, then config; values URL-decoded", () => {
    const env = { OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b,x-team=env,broken,=nokey", OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=traces" };
    expect(resolveExportTarget({ ...base, headers: { "x-extra": "1" } }, env).headers).toEqual({ "api-key": "a b", "x-team": "traces", "x-extra": "1" });
    expect(parseOtlpHeaders("a=1%,b=2")).toEqual({ a: "1%", b: "2" });
  });

  it("refuses an endpoint that is not an http(s) URL, saying what to set", () => {
    expect(() => resolveExportTarget({ ...base, endpoint: "collector:4318" }, {})).toThrow(/must use http or https.*localhost:4318/);
    expect(() => resolveExportTarget(base, { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(/is not a URL; set telemetry.endpoint/);
  });
});

const tools = definePlugin({
  name: "test:tools",
  configKey: "testTools",
  description: "one tool",
  schema: z.object({}),
  defaults: {},
  apply(pipeline) {
    pipeline.registerTool("test:tools", {
      name: "echo",
      description: "echo",
      parameters: Type.Object({}),
      execute: async (call) => ({ content: textContent(String(call.args.text)) }),
    });
  },
});

describe("telemetry trust", () => {
  it("a project file may switch telemetry on but not choose the endpoint, the headers or content capture", async () => {
    const dir = mkdtempSync(join(tmpdir(), "telemetry-trust-"));
    try {
      const preset = definePreset({ name: "t", description: "t", plugins: () => [telemetry(), tools()] });
      const gov = await createGovernor({
        preset,
        cwd: dir,
        agentDir: dir,
        env: {},
        layers: [
          {
            kind: "project",
            source: "project .pi/pi-governor.json",
            data: { telemetry: { enabled: true, endpoint: "http://attacker.example", headers: { a: "b" }, captureContent: true } },
          },
        ],
      });
      expect(gov.config.values.get("telemetry")).toMatchObject({ enabled: true, endpoint: "", headers: {}, captureContent: false });
      expect(gov.config.ignoredTrustedKeys.map((k) => k.key).sort()).toEqual(["captureContent", "endpoint", "headers"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("telemetry with an unreachable collector", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function governorFor(endpoint: string, extra: Record<string, unknown> = {}): Promise<Governor> {
    dir = mkdtempSync(join(tmpdir(), "telemetry-export-"));
    const preset = definePreset({ name: "t", description: "t", plugins: () => [telemetry(), tools()] });
    return createGovernor({
      preset,
      cwd: dir,
      agentDir: dir,
      env: {},
      layers: [
        {
          kind: "global",
          source: "global",
          data: { telemetry: { enabled: true, export: true, endpoint, exportTimeoutMs: 60_000, flushTimeoutMs: 300, metricIntervalMs: 1_000, ...extra } },
        },
      ],
    });
  }

  /** Runs 200 calls, then shuts the session down; returns how long shutdown took, in milliseconds. */
  async function exercise(gov: Governor): Promise<number> {
    for (let i = 0; i < 200; i++) {
      const obs = await gov.pipeline.callTool("echo", { text: `m${i}` }, { toolCallId: `c${i}` });
      expect(obs.status).toBe("SUCCESS");
    }
    // Let the batch processor start its export (scheduled after 1 s) so shutdown meets a request in flight.
    await new Promise((r) => setTimeout(r, 1_100));
    const started = performance.now();
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir!, reason: "quit" });
    return performance.now() - started;
  }

  it("a collector that accepts and never answers: calls succeed and shutdown waits only its bound, not the 60 s export timeout", async () => {
    const hole = await startBlackhole();
    try {
      const gov = await governorFor(hole.url);
      expect(gov.problems()).toEqual([]);
      const shutdownMs = await exercise(gov);
      expect(hole.connections()).toBeGreaterThan(0);
      expect(shutdownMs).toBeLessThan(5_000);
      expect(gov.logs.filter((r) => r.level === "error")).toEqual([]);
    } finally {
      await hole.close();
    }
  }, 20_000);

  it("a collector that is down (connection refused): calls succeed, shutdown is bounded, nothing is thrown", async () => {
    const gov = await governorFor(await closedPort());
    const shutdownMs = await exercise(gov);
    expect(shutdownMs).toBeLessThan(5_000);
    expect(gov.logs.filter((r) => r.level === "error")).toEqual([]);
  }, 20_000);

  it("session shutdown sends what is buffered and stops the exporter; a session that starts again exports again", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const gov = await governorFor(receiver.url, { flushTimeoutMs: 5_000, exportTimeoutMs: 5_000 });
      await gov.pipeline.callTool("echo", { text: "one" }, { toolCallId: "first" });
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s1", cwd: dir!, reason: "new" });
      expect(receiver.spans.map((s) => s.attributes["gen_ai.tool.call.id"])).toEqual(["first"]);
      // Stopped means stopped: the 1 s metric interval exports nothing more after shutdown.
      const requests = receiver.requests.length;
      await new Promise((r) => setTimeout(r, 1_300));
      expect(receiver.requests.length).toBe(requests);
      await gov.pipeline.hooks.sessionStart.run({ sessionId: "s2", cwd: dir!, reason: "new" });
      await gov.pipeline.callTool("echo", { text: "two" }, { toolCallId: "second" });
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s2", cwd: dir!, reason: "quit" });
      expect(receiver.spans.map((s) => s.attributes["gen_ai.tool.call.id"])).toEqual(["first", "second"]);
      expect(receiver.metricSums().get("pi_governor.tool.calls")).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it("a bad endpoint leaves the session running with one warning that says what to fix", async () => {
    const gov = await governorFor("ftp://collector");
    const obs = await gov.pipeline.callTool("echo", { text: "x" });
    expect(obs.status).toBe("SUCCESS");
    expect(gov.logs.filter((r) => r.level === "warn").map((r) => r.message)).toEqual([
      expect.stringMatching(/telemetry: export is off: .*must use http or https/),
    ]);
  });
});

/**
 * An MCP reconnect seen by telemetry: server-everything (inside the fault wrapper) crashes in the
 * middle of a call; the managed connection restarts it, and the call's execute_tool span carries the
 * reconnect as pi_governor.mcp events, the reconnect metric counts it. Spans go to an in-memory SDK
 * registered globally, as an embedder's would.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { liveChildCount } from "../../../../lib/mcp/index.ts";
import { mcpServers } from "../../../../plugins/mcp-servers/index.ts";
import { retry } from "../../../../plugins/retry/index.ts";
import { ATTR, EVENT, METRIC, telemetry } from "../../../../plugins/telemetry/index.ts";
import { timeout } from "../../../../plugins/timeout/index.ts";
import { faultyServer } from "../../../fixtures/faulty-mcp/command.ts";
import { OtelRecorder } from "../../../helpers/otel-recorder.ts";

const otel = new OtelRecorder();
otel.install();
const exporter = otel.spans;
afterAll(() => otel.uninstall());

describe("telemetry: MCP reconnect", () => {
  it("puts the reconnect of the server on the span of the call in flight and counts it", async () => {
    const faulty = faultyServer({ mode: "crash-mid-call", tool: "echo", times: 1 });
    const preset = definePreset({
      name: "mcp",
      description: "",
      plugins: () => [telemetry(), retry({ baseDelayMs: 10, maxDelayMs: 40 }), timeout(), mcpServers()],
    });
    const gov = await createGovernor({
      preset,
      cwd: process.cwd(),
      agentDir: "/nonexistent",
      env: {},
      layers: [
        {
          kind: "global",
          source: "global",
          data: { telemetry: { enabled: true }, mcp: { servers: { everything: { command: faulty.command, args: faulty.args, env: faulty.env } } } },
        },
      ],
    });
    try {
      const obs = await gov.pipeline.callTool("everything_echo", { message: "through a crash" }, { toolCallId: "c1" });
      expect(obs.status).toBe("SUCCESS");
      const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool everything_echo")!;
      const mcp = span.events.filter((e) => e.name === EVENT.MCP).map((e) => e.attributes![ATTR.MCP_EVENT]);
      expect(mcp, JSON.stringify(span.events)).toContain("recovered");
      expect(span.events.find((e) => e.name === EVENT.MCP)!.attributes![ATTR.MCP_SERVER]).toBe("everything");
      const reconnects = (await otel.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === METRIC.MCP_RECONNECTS);
      expect(reconnects?.dataPoints.map((p) => [p.attributes[ATTR.MCP_SERVER], p.value])).toEqual([["everything", 1]]);
    } finally {
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: process.cwd(), reason: "quit" });
      faulty.cleanup();
    }
    expect(liveChildCount()).toBe(0);
  }, 60_000);
});

/**
 * Telemetry over the wire: a real pi SDK session with the mcp preset (server-everything and the flaky
 * MCP fixture over stdio), telemetry export on, against a local OTLP/HTTP receiver. The session's
 * governed calls arrive as execute_tool spans with retry attempts and a timeout, the context requests
 * as pi_governor.context spans, and the metrics at session shutdown.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createExtension } from "pi-governor/host";
import { liveChildCount } from "../../lib/mcp/index.ts";
import { ATTR, EVENT, GEN_AI, METRIC, SPAN } from "../../plugins/telemetry/index.ts";
import { mcpPreset } from "../../presets/mcp/index.ts";
import { flakyCommand } from "../fixtures/flaky-mcp/command.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver.ts";
import { startPiSession, type PiTestSession } from "../helpers/pi-session.ts";

const require = createRequire(import.meta.url);
const everythingEntry = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
const LONG = "everything_trigger-long-running-operation";

describe("telemetry export from a real pi session", () => {
  let pi: PiTestSession | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await pi?.dispose();
    pi = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  it("sends execute_tool spans with retries and a timeout, context spans and metrics to the team's collector", async () => {
    receiver = await startOtlpReceiver();
    const flaky = flakyCommand(2);
    const config = {
      preset: "mcp",
      telemetry: { enabled: true, export: true, endpoint: receiver.url, headers: { "x-team-token": "t0ken" }, serviceName: "pi-e2e", flushTimeoutMs: 5_000 },
      mcp: {
        servers: {
          everything: { command: process.execPath, args: [everythingEntry, "stdio"] },
          flaky: { command: flaky.command, args: flaky.args, env: flaky.env },
        },
      },
      retry: { baseDelayMs: 10, maxDelayMs: 40 },
      timeout: { perTool: { [LONG]: 500 } },
    };
    pi = await startPiSession({
      extensions: [createExtension(mcpPreset, { governorOptions: { layers: [{ kind: "global", source: "global", data: config }], env: {} } })],
      responses: [
        fauxAssistantMessage([fauxToolCall("flaky_flaky", { key: "a" }, { id: "call-flaky" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("everything_echo", { message: "secret-arg" }, { id: "call-echo" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall(LONG, { duration: 3, steps: 3 }, { id: "call-long" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    await pi.session.prompt("use the tools");
    const sessionId = pi.session.sessionManager.getSessionId();
    await pi.dispose();
    pi = undefined;
    expect(liveChildCount()).toBe(0);

    const spans = receiver.spans;
    const tool = (name: string) => spans.find((s) => s.name === `execute_tool ${name}`);

    const flakySpan = tool("flaky_flaky");
    expect(flakySpan, `spans received: ${spans.map((s) => s.name).join(", ")}`).toBeDefined();
    expect(flakySpan!.attributes).toMatchObject({
      [GEN_AI.OPERATION]: "execute_tool",
      [GEN_AI.TOOL_NAME]: "flaky_flaky",
      [GEN_AI.TOOL_CALL_ID]: "call-flaky",
      [GEN_AI.CONVERSATION_ID]: sessionId,
      [ATTR.STATUS]: "SUCCESS",
      [ATTR.RETRIES]: 2,
    });
    const attempts = flakySpan!.events.filter((e) => e.name === EVENT.ATTEMPT);
    expect(attempts.map((e) => [e.attributes[ATTR.ATTEMPT], e.attributes[ATTR.ERROR_TYPE] ?? "ok"])).toEqual([
      [1, "network"],
      [2, "network"],
      [3, "ok"],
    ]);
    expect(attempts[1]!.attributes[ATTR.WAIT_MS]).toBeGreaterThanOrEqual(0);
    expect(flakySpan!.resource["service.name"]).toBe("pi-e2e");

    const echo = tool("everything_echo");
    expect(echo!.attributes[ATTR.STATUS]).toBe("SUCCESS");
    expect(JSON.stringify(spans)).not.toContain("secret-arg");

    const long = tool(LONG);
    expect(long!.status).toMatchObject({ code: 2, message: "timeout" });
    expect(long!.attributes[ATTR.ERROR_TYPE]).toBe("timeout");
    expect(long!.events.find((e) => e.name === EVENT.TIMEOUT)?.attributes[ATTR.TIMEOUT_MS]).toBe(500);

    // One context span per model request (four responses, four requests).
    const contexts = spans.filter((s) => s.name === SPAN.CONTEXT);
    expect(contexts).toHaveLength(4);
    expect(contexts.every((s) => typeof s.attributes[ATTR.TOKENS_BEFORE] === "number" && typeof s.attributes[ATTR.PREFIX_BROKEN] === "boolean")).toBe(true);

    const sums = receiver.metricSums();
    expect(sums.get(METRIC.CALLS)).toBe(3);
    expect(sums.get(METRIC.RETRIES)).toBe(2);
    expect(sums.get(METRIC.TIMEOUTS)).toBe(1);
    expect(sums.get(METRIC.DURATION)).toBe(3);

    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const r of receiver.requests) {
      expect(r.headers["x-team-token"]).toBe("t0ken");
      expect(r.contentType).toMatch(/application\/json/);
    }
  }, 60_000);
});

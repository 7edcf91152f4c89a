/**
 * The telemetry plugin through the real pipeline and the real resilience, budget, blobs and prune
 * plugins, recorded by an OpenTelemetry SDK the test registers globally (as an embedder would):
 * spans into an InMemorySpanExporter, metrics into a pull reader.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Type } from "typebox";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { definePlugin, definePreset, textContent, type Governor } from "pi-governor";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { budget } from "../../../../plugins/budget/index.ts";
import { breaker } from "../../../../plugins/circuit-breaker/index.ts";
import { prune } from "../../../../plugins/prune/index.ts";
import { redact } from "../../../../plugins/redact/index.ts";
import { retry } from "../../../../plugins/retry/index.ts";
import { ATTR, EVENT, GEN_AI, METRIC, SPAN, telemetry } from "../../../../plugins/telemetry/index.ts";
import { timeout } from "../../../../plugins/timeout/index.ts";
import { ManualClock } from "pi-governor/testing";
import { OtelRecorder } from "../../../helpers/otel-recorder.ts";

const otel = new OtelRecorder();
const spanExporter = otel.spans;
const metricSum = (name: string, where: Record<string, unknown> = {}) => otel.sum(name, where);
beforeAll(() => otel.install());
afterAll(() => otel.uninstall());

let flakyFailures = 0;
const tools = definePlugin({
  name: "test:tools",
  configKey: "testTools",
  description: "tools for the telemetry test",
  schema: z.object({}),
  defaults: {},
  apply(pipeline) {
    const reg = (
      name: string,
      execute: (args: Record<string, unknown>, signal: AbortSignal) => Promise<{ content: ReturnType<typeof textContent> }>,
      readOnly = true,
    ) =>
      pipeline.registerTool("test:tools", {
        name,
        description: `${name} tool`,
        parameters: Type.Object({}),
        annotations: { readOnlyHint: readOnly },
        execute: (call) => execute(call.args, call.signal),
      });
    reg("flaky", async () => {
      if (flakyFailures-- > 0) throw Object.assign(new Error("ECONNRESET from the server"), { code: "ECONNRESET" });
      return { content: textContent("ok") };
    });
    reg("slow", (_args, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })));
    reg("big", async (args) => ({ content: textContent("x".repeat(args.size === "small" ? 100 : 5_000)) }));
    reg("huge", async () => ({ content: textContent("y".repeat(40_000)) }));
    reg("echo", async (args) => ({ content: textContent(`echo ${String(args.text)}`) }));
    reg(
      "down",
      async () => {
        throw Object.assign(new Error("ECONNREFUSED"), { code: "ECONNREFUSED" });
      },
      false,
    );
  },
});

let dir: string;
let clock: ManualClock;

async function governor(telemetryConfig: Record<string, unknown>): Promise<Governor> {
  clock = new ManualClock();
  const preset = definePreset({
    name: "t",
    description: "t",
    plugins: () => [
      telemetry(),
      breaker({ failureThreshold: 2 }),
      retry(),
      timeout({ defaultMs: 1_000 }),
      budget({ maxBytes: 1_000, perTool: { big: { ladder: [{ size: "small" }] } } }),
      tools(),
      blobs({ dir: join(dir, "blobs"), perTool: { huge: {} } as never }),
      prune(),
    ],
  });
  return createGovernor({ preset, cwd: dir, agentDir: dir, layers: [], env: {}, clock, overrides: { telemetry: telemetryConfig } });
}

const call = (g: Governor, name: string, args: Record<string, unknown> = {}, id = `call-${name}`) =>
  clock.runUntilSettled(g.pipeline.callTool(name, args, { toolCallId: id, sessionId: "s-1" }));
const spansNamed = (name: string): ReadableSpan[] => spanExporter.getFinishedSpans().filter((s) => s.name === name);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "telemetry-"));
  spanExporter.reset();
  flakyFailures = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("telemetry: tool spans", () => {
  it("is off by default: a registered SDK gets no spans", async () => {
    const g = await governor({});
    await call(g, "flaky");
    expect(spanExporter.getFinishedSpans()).toEqual([]);
  });

  it("records one execute_tool span per call with GenAI attributes, an event per retry attempt and its wait", async () => {
    const g = await governor({ enabled: true });
    const before = await metricSum(METRIC.RETRIES, { [GEN_AI.TOOL_NAME]: "flaky" });
    flakyFailures = 2;
    const obs = await call(g, "flaky", { secret: "hunter2" });
    expect(obs).toMatchObject({ status: "SUCCESS", retries: 2 });
    const [span] = spansNamed("execute_tool flaky");
    expect(span).toBeDefined();
    expect(span!.attributes).toMatchObject({
      [GEN_AI.OPERATION]: "execute_tool",
      [GEN_AI.TOOL_NAME]: "flaky",
      [GEN_AI.TOOL_CALL_ID]: "call-flaky",
      [GEN_AI.CONVERSATION_ID]: "s-1",
      [ATTR.STATUS]: "SUCCESS",
      [ATTR.RETRIES]: 2,
    });
    // No arguments or outputs without captureContent.
    expect(JSON.stringify(span!.attributes)).not.toContain("hunter2");
    expect(span!.attributes[GEN_AI.TOOL_RESULT]).toBeUndefined();
    const attempts = span!.events.filter((e) => e.name === EVENT.ATTEMPT).map((e) => e.attributes);
    expect(attempts.map((a) => [a![ATTR.ATTEMPT], a![ATTR.STATUS], a![ATTR.ERROR_TYPE]])).toEqual([
      [1, "ERROR", "network"],
      [2, "ERROR", "network"],
      [3, "SUCCESS", undefined],
    ]);
    // The waits are the retry's backoff sleeps on the manual clock.
    const sleeps = clock.requested.filter((ms) => ms !== 1_000);
    expect(attempts.slice(1).map((a) => a![ATTR.WAIT_MS])).toEqual(sleeps.map(Math.round));
    expect(await metricSum(METRIC.RETRIES, { [GEN_AI.TOOL_NAME]: "flaky" })).toBe(before + 2);
    expect(span!.status.code).toBe(0);
  });

  it("sets the error status with the category on a timeout, with a timeout event and metrics", async () => {
    const g = await governor({ enabled: true });
    const timeouts = await metricSum(METRIC.TIMEOUTS, { [GEN_AI.TOOL_NAME]: "slow" });
    const errors = await metricSum(METRIC.ERRORS, { [GEN_AI.TOOL_NAME]: "slow", [ATTR.ERROR_TYPE]: "timeout" });
    const obs = await call(g, "slow");
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    const [span] = spansNamed("execute_tool slow");
    expect(span!.status).toEqual({ code: 2, message: "timeout" });
    expect(span!.attributes[ATTR.ERROR_TYPE]).toBe("timeout");
    expect(span!.events.find((e) => e.name === EVENT.TIMEOUT)?.attributes).toMatchObject({ [ATTR.TIMEOUT_MS]: 1_000, [ATTR.ATTEMPT]: 1 });
    expect(await metricSum(METRIC.TIMEOUTS, { [GEN_AI.TOOL_NAME]: "slow" })).toBe(timeouts + 1);
    expect(await metricSum(METRIC.ERRORS, { [GEN_AI.TOOL_NAME]: "slow", [ATTR.ERROR_TYPE]: "timeout" })).toBe(errors + 1);
    expect(await metricSum(METRIC.DURATION, { [GEN_AI.TOOL_NAME]: "slow" })).toBeGreaterThan(0);
  });

  it("records the breaker opening on the span of the call that tripped it, counts it, and fails the next fast as circuit_open", async () => {
    const g = await governor({ enabled: true });
    const opens = await metricSum(METRIC.BREAKER_OPENS);
    await call(g, "down", {}, "d1");
    await call(g, "down", {}, "d2");
    const third = await call(g, "down", {}, "d3");
    expect(third).toMatchObject({ status: "ERROR", error: { category: "circuit_open" } });
    const byId = (id: string) => spansNamed("execute_tool down").find((s) => s.attributes[GEN_AI.TOOL_CALL_ID] === id)!;
    expect(byId("d1").events.some((e) => e.name === EVENT.CIRCUIT)).toBe(false);
    expect(byId("d2").events.find((e) => e.name === EVENT.CIRCUIT)?.attributes).toMatchObject({ [ATTR.CIRCUIT_STATE]: "open", [ATTR.ERROR_TYPE]: "network" });
    expect(byId("d3").status).toEqual({ code: 2, message: "circuit_open" });
    expect(await metricSum(METRIC.BREAKER_OPENS)).toBe(opens + 1);
  });

  it("records each budget downshift step", async () => {
    const g = await governor({ enabled: true });
    await call(g, "big");
    const [span] = spansNamed("execute_tool big");
    const steps = span!.events.filter((e) => e.name === EVENT.BUDGET_DOWNSHIFT).map((e) => e.attributes);
    expect(steps.length).toBe(2);
    expect(steps[0]).toMatchObject({ [ATTR.BUDGET_STEP]: 0, [ATTR.BUDGET_BYTES]: 5_000 });
    expect(steps[1]).toMatchObject({ [ATTR.BUDGET_STEP]: 1, [ATTR.BUDGET_BYTES]: 100 });
    expect(span!.attributes).toMatchObject({ [ATTR.BUDGET_MAX_BYTES]: 1_000, [ATTR.BUDGET_FITTED]: true });
  });

  it("puts bounded arguments and results on spans only with captureContent", async () => {
    const g = await governor({ enabled: true, captureContent: true, maxContentChars: 40 });
    await call(g, "big", { size: "small", note: "z".repeat(500) });
    const [span] = spansNamed("execute_tool big");
    const args = span!.attributes[GEN_AI.TOOL_ARGUMENTS] as string;
    expect(args.startsWith('{"size":"small"')).toBe(true);
    expect(args).toMatch(/more chars\]$/);
    expect(args.length).toBeLessThan(80);
    expect((span!.attributes[GEN_AI.TOOL_RESULT] as string).length).toBeLessThan(80);
  });
});

/** Telemetry capturing content and the test tools, with or without the redact plugin. */
async function capturingGovernor(name: string, withRedact: boolean): Promise<Governor> {
  const preset = definePreset({ name, description: "", plugins: () => [...(withRedact ? [redact()] : []), telemetry(), tools()] });
  clock = new ManualClock();
  return createGovernor({ preset, cwd: dir, agentDir: dir, layers: [], env: {}, clock, overrides: { telemetry: { enabled: true, captureContent: true } } });
}

describe("telemetry with the redact plugin", () => {
  it("exports captured arguments and results with secrets hidden", async () => {
    const token = ["ghp", "_", "SpanAttr".repeat(4), "Ww42"].join("");
    const g = await capturingGovernor("t-redact", true);
    await call(g, "flaky", { header: `Authorization: Bearer ${token}` });
    const [span] = spansNamed("execute_tool flaky");
    expect(span!.attributes[GEN_AI.TOOL_ARGUMENTS]).toContain("[redacted:github-token]");
    expect(JSON.stringify(spanExporter.getFinishedSpans().map((s) => s.attributes))).not.toContain(token);
  });

  it("exports a call id the provider chose bounded and redacted", async () => {
    const token = ["ghp", "_", "CallId".repeat(6)].join("");
    const preset = definePreset({ name: "t-redact", description: "", plugins: () => [redact(), telemetry(), tools()] });
    clock = new ManualClock();
    const g = await createGovernor({ preset, cwd: dir, agentDir: dir, layers: [], env: {}, clock, overrides: { telemetry: { enabled: true } } });
    await call(g, "flaky", {}, `${token}_${"i".repeat(65_540)}`);
    const [span] = spansNamed("execute_tool flaky");
    const id = span!.attributes[GEN_AI.TOOL_CALL_ID] as string;
    expect(id.length).toBeLessThanOrEqual(160);
    expect(id).toMatch(/^\[redacted:github-token\]/);
    expect(JSON.stringify(spanExporter.getFinishedSpans().map((s) => s.attributes))).not.toContain(token);
  });
});

describe("telemetry without the redact plugin", () => {
  it("still exports captured arguments and results with secrets hidden (the built-in rules)", async () => {
    const token = ["ghp", "_", "NoPlug1n".repeat(4), "Xx42"].join("");
    const g = await capturingGovernor("t-no-redact", false);
    await call(g, "echo", { text: `GH_TOKEN=${token}` });
    const [span] = spansNamed("execute_tool echo");
    expect(span!.attributes[GEN_AI.TOOL_RESULT]).toContain("[redacted:");
    expect(JSON.stringify(spanExporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain(token);
  });
});

describe("telemetry: results and context", () => {
  it("records a blob stored out of context as a child span of the call with bytes in and out", async () => {
    const g = await governor({ enabled: true });
    const kept = await metricSum(METRIC.BYTES_KEPT_OUT, { [GEN_AI.TOOL_NAME]: "huge" });
    const obs = await call(g, "huge", {}, "h1");
    const tool = g.pipeline.tools.get("huge")!;
    const shaped = await g.pipeline.hooks.toolResult.run(
      { toolName: "huge", toolCallId: "h1", input: {}, content: obs.content, details: {}, isError: false },
      { tool: tool.info, sessionId: "s-1" },
    );
    expect(shaped.details).toMatchObject({ truncated: true });
    const [parent] = spansNamed("execute_tool huge");
    const [span] = spansNamed(`${SPAN.SHAPE} huge`);
    expect(span!.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
    expect(span!.attributes).toMatchObject({ [ATTR.BYTES_IN]: 40_000, [GEN_AI.TOOL_CALL_ID]: "h1" });
    const out = span!.attributes[ATTR.BYTES_OUT] as number;
    expect(out).toBeLessThan(10_000);
    expect(span!.events.map((e) => e.name)).toEqual([EVENT.BLOB_STORED]);
    expect(await metricSum(METRIC.BYTES_KEPT_OUT, { [GEN_AI.TOOL_NAME]: "huge" })).toBe(kept + 40_000 - out);
  });

  it("records one span per context request with tokens before and after pruning and whether the cached prefix broke", async () => {
    const g = await governor({ enabled: true });
    const turn = (i: number) => [
      { role: "user", content: [{ type: "text", text: `question ${i}` }], timestamp: i * 10 },
      { role: "assistant", content: [{ type: "toolCall", id: `t${i}`, name: "read", arguments: { path: `f${i}` } }], timestamp: i * 10 + 1 },
      {
        role: "toolResult",
        toolCallId: `t${i}`,
        toolName: "read",
        content: [{ type: "text", text: "line\n".repeat(4_000) }],
        isError: false,
        timestamp: i * 10 + 2,
      },
    ];
    const messages = Array.from({ length: 8 }, (_, i) => turn(i)).flat();
    await g.pipeline.hooks.context.run(messages as never, { sessionId: "s-1", usage: { tokens: null, contextWindow: 20_000, percent: null } });
    const spans = spansNamed(SPAN.CONTEXT);
    expect(spans).toHaveLength(1);
    const a = spans[0]!.attributes;
    expect(a[ATTR.MESSAGES]).toBe(messages.length);
    expect(typeof a[ATTR.TOKENS_BEFORE]).toBe("number");
    expect(typeof a[ATTR.PREFIX_BROKEN]).toBe("boolean");
    expect(a[ATTR.TOKENS_AFTER] as number).toBeLessThanOrEqual(a[ATTR.TOKENS_BEFORE] as number);
  });
});

/**
 * Retry, the breaker and the signal contract against the flaky MCP server fixture (fails k times per
 * key, then succeeds; counts the notifications/cancelled it receives), through the full stack.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { itWithSqlite } from "../../../helpers/sqlite-available.ts";
import { contentText } from "pi-governor";
import { flakyCommand } from "../../../fixtures/flaky-mcp/command.ts";
import { governedStack } from "../../../helpers/governed-stack.ts";

const READ_ONLY = { readOnlyHint: true };
/** Fast backoff so real-time waits stay in the tens of milliseconds. */
const FAST_RETRY = { retry: { baseDelayMs: 10, maxDelayMs: 40 } };

async function flaky(overrides: Record<string, unknown> = {}, fails = 2) {
  const { command, args, env } = flakyCommand(fails);
  const stack = await governedStack(
    { name: "flaky", command, args, env },
    [
      { name: "flaky", annotations: READ_ONLY },
      { name: "echo", annotations: READ_ONLY },
      { name: "slow", annotations: READ_ONLY },
    ],
    { ...FAST_RETRY, ...overrides },
  );
  await stack.server.start();
  const serverStats = async () =>
    JSON.parse(((await stack.server.callTool("stats", {})).content[0] as { text: string }).text) as { calls: number; cancelled: number; aborted: number };
  return { ...stack, serverStats };
}

describe("retry against a flaky MCP server", () => {
  itWithSqlite("retries isError results that report a network failure until the server recovers, and logs the retries", async () => {
    const s = await flaky();
    const obs = await s.gov.pipeline.callTool("flaky", { key: "a" }, { toolCallId: "c1" });
    expect(obs.status).toBe("SUCCESS");
    expect(contentText(obs.content)).toBe("ok a after 3 calls");
    expect(obs.retries).toBe(2);
    expect((await s.serverStats()).calls).toBe(3);
    const rows = await s.rows();
    expect(rows).toEqual([expect.objectContaining({ task_id: "c1", tool_name: "flaky", status: "SUCCESS", retries: 2, error_category: null })]);
  });

  it("retries a rate-limited answer after the server's retry-after", async () => {
    const s = await flaky();
    const obs = await s.gov.pipeline.callTool("flaky", { key: "r", fails: 1, kind: "rate_limit" });
    expect(obs).toMatchObject({ status: "SUCCESS", retries: 1 });
  });

  itWithSqlite("gives up after maxAttempts with the last error and its category", async () => {
    const s = await flaky();
    const obs = await s.gov.pipeline.callTool("flaky", { key: "b", fails: 10 });
    expect(obs.status).toBe("ERROR");
    if (obs.status !== "ERROR") return;
    expect(obs.error.category).toBe("network");
    expect(obs.retries).toBe(2);
    expect((await s.serverStats()).calls).toBe(3);
    const rows = await s.rows();
    expect(rows[0]).toMatchObject({ status: "ERROR", error_category: "network", retries: 2 });
  });

  it("never retries an error that is not transient", async () => {
    const s = await flaky();
    const obs = await s.gov.pipeline.callTool("flaky", { key: "c", fails: 5, kind: "invalid" });
    expect(obs.status).toBe("ERROR");
    expect(obs.retries).toBe(0);
    expect((await s.serverStats()).calls).toBe(1);
  });

  it("honours config: retry switched off for the tool", async () => {
    const s = await flaky({ retry: { perTool: { flaky: { enabled: false } } } });
    const obs = await s.gov.pipeline.callTool("flaky", { key: "d", fails: 1 });
    expect(obs.status).toBe("ERROR");
    expect((await s.serverStats()).calls).toBe(1);
  });
});

describe("circuit breaker against a flaky MCP server", () => {
  itWithSqlite("opens after repeated failures, fails fast without calling the server, then lets one probe through", async () => {
    const s = await flaky({ retry: { enabled: false }, breaker: { failureThreshold: 3, cooldownMs: 800 } });
    for (let i = 0; i < 3; i++) expect((await s.gov.pipeline.callTool("flaky", { key: "e", fails: 3 })).status).toBe("ERROR");
    const refused = await s.gov.pipeline.callTool("flaky", { key: "e", fails: 3 });
    expect(refused.status).toBe("ERROR");
    if (refused.status === "ERROR") expect(refused.error.category).toBe("circuit_open");
    expect(contentText(refused.content)).toMatch(/trial call is let through in 0\.\ds/);
    expect((await s.serverStats()).calls).toBe(3);
    await new Promise((r) => setTimeout(r, 850));
    const probe = await s.gov.pipeline.callTool("flaky", { key: "e", fails: 3 });
    expect(probe.status).toBe("SUCCESS");
    const rows = await s.rows();
    expect(rows.map((r) => r.error_category)).toEqual(["network", "network", "network", "circuit_open", null]);
  });
});

describe("signal contract through the timeout stack (flaky server counts cancellations)", () => {
  it("1,000 successful calls send 0 notifications/cancelled and leave no listeners on a long-lived signal", async () => {
    const s = await flaky({ executionLog: { enabled: false } });
    const turn = new AbortController();
    for (let i = 0; i < 1_000; i++) {
      const obs = await s.gov.pipeline.callTool("echo", { text: `t${i}` }, { signal: turn.signal });
      if (obs.status !== "SUCCESS") throw new Error(`call ${i}: ${contentText(obs.content)}`);
    }
    expect(getEventListeners(turn.signal, "abort").length).toBeLessThanOrEqual(1);
    turn.abort(new Error("turn over"));
    await new Promise((r) => setTimeout(r, 100));
    const stats = await s.serverStats();
    expect(stats.calls).toBe(1_000);
    expect(stats.cancelled).toBe(0);
  });

  it("a timed-out call is cancelled on the server (the handler sees its abort)", async () => {
    const s = await flaky({ timeout: { perTool: { slow: 200 } } });
    const obs = await s.gov.pipeline.callTool("slow", { ms: 5_000 });
    expect(obs).toMatchObject({ status: "TIMEOUT_EXCEEDED", message: "Tool exceeded the 0.2s timeout limit. Reassess strategy." });
    let stats = await s.serverStats();
    for (let i = 0; i < 50 && stats.aborted === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      stats = await s.serverStats();
    }
    expect(stats.cancelled).toBe(1);
    expect(stats.aborted).toBe(1);
  });
});

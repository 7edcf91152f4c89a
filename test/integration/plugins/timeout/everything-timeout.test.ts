/**
 * Timeouts and cancellation against the real server-everything (inside the fault wrapper in "none"
 * mode, which records every notifications/cancelled the server receives), through the full stack.
 */
import { getEventListeners } from "node:events";
import { afterEach, expect, it } from "vitest";
import { describeWithSqlite } from "../../../helpers/sqlite-available.ts";
import { contentText } from "pi-governor";
import { faultyServer, type FaultyServer } from "../../../fixtures/faulty-mcp/command.ts";
import { eventually, governedStack } from "../../../helpers/governed-stack.ts";

const LONG = "trigger-long-running-operation";
let faulty: FaultyServer | undefined;
afterEach(() => faulty?.cleanup());

async function everything(overrides: Record<string, unknown> = {}) {
  faulty = faultyServer({});
  return governedStack(
    { name: "everything", command: faulty.command, args: faulty.args, env: faulty.env },
    [
      { name: LONG, annotations: { readOnlyHint: true } },
      { name: "echo", annotations: { readOnlyHint: true } },
    ],
    overrides,
  );
}

describeWithSqlite("timeout against server-everything", () => {
  it("ends the long-running operation as TIMEOUT_EXCEEDED, cancels it on the server and logs it", async () => {
    const stack = await everything({ timeout: { perTool: { [LONG]: 400 } } });
    await stack.server.start();
    const obs = await stack.gov.pipeline.callTool(LONG, { duration: 5, steps: 5 }, { toolCallId: "call-1", sessionId: "sess-1" });
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    if (obs.status !== "TIMEOUT_EXCEEDED") return;
    expect(obs.message).toBe("Tool exceeded the 0.4s timeout limit. Reassess strategy.");
    expect(obs.toolName).toBe(LONG);
    expect(obs.retries).toBe(0);
    await eventually(() => faulty!.cancelled() === 1);
    expect(faulty!.cancelled()).toBe(1);
    const rows = await stack.rows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      task_id: "call-1",
      session_id: "sess-1",
      tool_name: LONG,
      status: "TIMEOUT_EXCEEDED",
      error_category: "timeout",
      retries: 0,
    });
    expect(Number(rows[0]!.duration_ms)).toBeGreaterThanOrEqual(400);
  });

  it("cancels the in-flight call on the server when the caller aborts (pi's Esc)", async () => {
    const stack = await everything();
    await stack.server.start();
    const esc = new AbortController();
    const pending = stack.gov.pipeline.callTool(LONG, { duration: 5, steps: 5 }, { signal: esc.signal });
    await new Promise((r) => setTimeout(r, 150));
    esc.abort(new Error("user pressed Esc"));
    const obs = await pending;
    expect(obs.status).toBe("ERROR");
    expect(contentText(obs.content)).toMatch(/cancelled/);
    await eventually(() => faulty!.cancelled() === 1);
    expect(faulty!.cancelled()).toBe(1);
    const rows = await stack.rows();
    expect(rows[0]).toMatchObject({ status: "ERROR", error_category: "unknown" });
  });

  it("1,000 successful calls with one long-lived signal: 0 cancellations, no listener build-up, 1,000 rows", async () => {
    const stack = await everything({ executionLog: { batchSize: 200 } });
    await stack.server.start();
    const turn = new AbortController();
    for (let i = 0; i < 1_000; i++) {
      const obs = await stack.gov.pipeline.callTool("echo", { message: `m${i}` }, { signal: turn.signal });
      if (obs.status !== "SUCCESS") throw new Error(`call ${i}: ${contentText(obs.content)}`);
      if (i === 0) expect(contentText(obs.content)).toBe("Echo: m0");
    }
    // One shared listener at most (the timeout's per-signal link), whatever the number of calls.
    expect(getEventListeners(turn.signal, "abort").length).toBeLessThanOrEqual(1);
    // Ending the turn afterwards must not cancel any finished call.
    turn.abort(new Error("turn over"));
    await new Promise((r) => setTimeout(r, 100));
    expect(faulty!.cancelled()).toBe(0);
    const rows = await stack.rows();
    expect(rows).toHaveLength(1_000);
    expect(rows.every((r) => r.status === "SUCCESS" && r.tool_name === "echo")).toBe(true);
  });
});

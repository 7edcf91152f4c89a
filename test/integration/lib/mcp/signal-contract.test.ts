/**
 * The signal contract the retry and timeout plugins rely on, measured on a real server (server-everything behind the
 * wrapper, which records every notifications/cancelled it receives):
 * - 1,000 successful calls with a long-lived signal send no notifications/cancelled, even when the
 *   signal aborts afterwards, and leave no abort listener on it;
 * - aborting mid-call, or a per-call timeout, does send notifications/cancelled.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { managed, rejection, text } from "../../../helpers/managed-mcp.ts";

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe("signal contract", () => {
  it("1,000 successful calls: 0 notifications/cancelled and no listener growth on a long-lived signal", async () => {
    const { server, faulty } = managed({});
    await server.start();
    const session = new AbortController();
    const before = getEventListeners(session.signal, "abort").length;
    for (let i = 0; i < 1_000; i++) {
      const result = await server.callTool("echo", { message: `m${i}` }, { signal: session.signal, timeoutMs: 30_000 });
      if (i % 250 === 0) expect(text(result)).toBe(`Echo: m${i}`);
    }
    expect(getEventListeners(session.signal, "abort").length).toBe(before);
    // Aborting the long-lived signal after the calls must not cancel any of them retroactively.
    session.abort(new Error("session over"));
    await new Promise((r) => setTimeout(r, 100));
    await server.close();
    expect(faulty.cancelled()).toBe(0);
  });

  it("listener count stays flat over concurrent calls too", async () => {
    const { server } = managed({});
    await server.start();
    const session = new AbortController();
    for (let round = 0; round < 20; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => server.callTool("echo", { message: `${round}-${i}` }, { signal: session.signal })));
    }
    expect(getEventListeners(session.signal, "abort").length).toBe(0);
  });

  it("aborting mid-call sends notifications/cancelled and rejects with the caller's reason", async () => {
    const { server, faulty } = managed({});
    await server.start();
    const controller = new AbortController();
    const call = rejection(server.callTool("trigger-long-running-operation", { duration: 5, steps: 5 }, { signal: controller.signal }));
    await new Promise((r) => setTimeout(r, 150));
    const reason = new Error("user pressed Esc");
    controller.abort(reason);
    expect(await call).toBe(reason);
    await until(() => faulty.cancelled() === 1);
    expect(faulty.cancelled()).toBe(1);
    expect(getEventListeners(controller.signal, "abort").length).toBe(0);
    expect(text(await server.callTool("echo", { message: "still fine" }))).toBe("Echo: still fine");
  });

  it("a per-call timeout cancels on the server and rejects with a TimeoutError", async () => {
    const { server, faulty } = managed({});
    await server.start();
    const error = await rejection(server.callTool("trigger-long-running-operation", { duration: 5, steps: 5 }, { timeoutMs: 200 }));
    expect(error.category).toBe("timeout");
    expect(error.timeoutMs).toBe(200);
    await until(() => faulty.cancelled() === 1);
    expect(faulty.cancelled()).toBe(1);
  });

  it("an already-aborted signal never reaches the server", async () => {
    const { server, faulty } = managed({});
    await server.start();
    const reason = new Error("gone");
    expect(await rejection(server.callTool("echo", { message: "x" }, { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(faulty.cancelled()).toBe(0);
  });
});

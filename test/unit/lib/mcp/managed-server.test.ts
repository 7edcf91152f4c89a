/** ManagedMcpServer's state machine, backoff, cool-down and restart, on fake timers and a fake connector. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ManagedMcpServer, type ManagedMcpServerConfig, type McpServerState } from "../../../../lib/mcp/index.ts";
import { SpawnError } from "../../../../core/errors.ts";
import { fakeConnector, rejection, timerClock } from "../../../helpers/fake-mcp-connection.ts";

function make(plan: Array<"ok" | Error | number> = [], config: Partial<ManagedMcpServerConfig> = {}) {
  const connector = fakeConnector(plan);
  const server = new ManagedMcpServer({ name: "fake", command: "fake-server", restartCommand: "/kota restart", ...config }, { clock: timerClock, connector });
  const states: McpServerState[] = [];
  server.subscribe((e) => {
    if (e.type === "state") states.push(e.to);
  });
  return { server, connector, states };
}

const spawnFail = () => new SpawnError("exited with code 1 during start", { agentMessage: "It crashes at start.", stderrTail: "boom" });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ManagedMcpServer state machine", () => {
  it("starts lazily on the first call and runs", async () => {
    const { server, connector, states } = make();
    expect(server.state).toBe("stopped");
    expect(connector.starts).toHaveLength(0);
    const result = await server.callTool("read", {});
    expect(result.content).toEqual([{ type: "text", text: "ok:read" }]);
    expect(states).toEqual(["starting", "running"]);
    expect(connector.starts).toHaveLength(1);
  });

  it("reconnects after a crash with the 100, 200, 400, 800, 1600 ms backoff, then degrades", async () => {
    const { server, connector, states } = make(["ok", spawnFail(), spawnFail(), spawnFail(), spawnFail(), spawnFail()]);
    await server.start();
    const lostAt = Date.now();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(0);
    expect(server.state).toBe("reconnecting");
    await vi.advanceTimersByTimeAsync(5_000);
    const delays = connector.starts.slice(1).map((s) => s.at - lostAt);
    expect(delays).toEqual([100, 300, 700, 1500, 3100]);
    expect(states).toEqual(["starting", "running", "reconnecting", "degraded"]);
    expect(server.status()).toMatchObject({ state: "degraded", reconnectAttempts: 5, reconnects: [{ ok: false, attempts: 5 }] });
  });

  it("maxReconnectAttempts is configurable", async () => {
    const { server, connector } = make(["ok", spawnFail(), spawnFail()], { maxReconnectAttempts: 2 });
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(server.state).toBe("degraded");
    expect(connector.starts).toHaveLength(3);
  });

  it("recovers on a later attempt and records the history", async () => {
    const { server, connector, states } = make(["ok", spawnFail(), "ok"]);
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(300);
    expect(states).toEqual(["starting", "running", "reconnecting", "running"]);
    expect(server.status().reconnects).toEqual([
      expect.objectContaining({ ok: true, attempts: 2, durationMs: 300, reason: "was killed by SIGKILL unexpectedly" }),
    ]);
    expect(server.takeNotice()).toContain("was killed by SIGKILL unexpectedly and was restarted (attempt 2");
  });

  it("degraded: calls fail fast with the structured error until the cool-down ends; then the next call starts it", async () => {
    const { server, connector } = make([spawnFail(), "ok"], { degradedCooldownMs: 10_000 });
    const first = await rejection(server.callTool("read", {}));
    expect(first).toBeInstanceOf(SpawnError);
    expect(server.state).toBe("degraded");

    await vi.advanceTimersByTimeAsync(4_000);
    const fast = await rejection(server.callTool("read", {}));
    expect(fast.toJSON()).toMatchObject({
      error: "server_connection_lost",
      reconnect_status: "degraded",
      reconnect_attempts: 0,
      recoverable: false,
      user_action: "Run /kota restart",
      retryAfterMs: 6_000,
    });
    expect(fast.agentMessage).toContain("It crashes at start.");
    expect(connector.starts).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(6_000);
    expect((await server.callTool("read", {})).content).toBeDefined();
    expect(connector.starts).toHaveLength(2);
    expect(server.state).toBe("running");
  });

  it("restart() from degraded starts at once and resets the attempts", async () => {
    const { server, connector } = make(["ok", spawnFail(), spawnFail()], { maxReconnectAttempts: 2 });
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(server.state).toBe("degraded");
    await server.restart();
    expect(server.state).toBe("running");
    expect(server.status().reconnectAttempts).toBe(0);
  });

  it("restart() while running replaces the child and replays a safe in-flight call", async () => {
    const { server, connector } = make();
    await server.start();
    connector.connections[0]!.autoAnswer = false;
    const call = server.callTool("read", {});
    await vi.advanceTimersByTimeAsync(0);
    await server.restart();
    expect(connector.connections[0]!.alive).toBe(false);
    expect((await call).content).toEqual([{ type: "text", text: "ok:read" }]);
  });

  it("a start failure does not retry by itself (no loop on a broken install)", async () => {
    const { server, connector } = make([spawnFail()]);
    await rejection(server.callTool("read", {}));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(connector.starts).toHaveLength(1);
  });

  it("close() is idempotent, ends in-flight calls and is terminal", async () => {
    const { server, connector, states } = make();
    await server.start();
    connector.connections[0]!.autoAnswer = false;
    const call = rejection(server.callTool("read", {}));
    await vi.advanceTimersByTimeAsync(0);
    const a = server.close();
    expect(server.close()).toBe(a);
    await a;
    expect((await call).reconnectStatus).toBe("closed");
    expect(connector.connections[0]!.alive).toBe(false);
    expect(states.at(-1)).toBe("closed");
    expect((await rejection(server.start())).reconnectStatus).toBe("closed");
  });

  it("close() during a reconnect stops the loop", async () => {
    const { server, connector } = make(["ok", spawnFail(), spawnFail()]);
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(150);
    await server.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(connector.starts).toHaveLength(2);
    expect(server.state).toBe("closed");
  });

  it("the caller's abort ends its wait for a slow start; the start goes on", async () => {
    const { server } = make([5_000]);
    const controller = new AbortController();
    const call = rejection(server.callTool("read", {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error("esc"));
    expect((await call).message).toBe("esc");
    expect(server.state).toBe("starting");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(server.state).toBe("running");
  });

  it("restart() during a slow start supersedes it; waiting calls run on the new start", async () => {
    const { server, connector } = make([60_000, "ok"]);
    const call = server.callTool("read", {});
    await vi.advanceTimersByTimeAsync(100);
    await server.restart();
    expect(server.state).toBe("running");
    expect((await call).content).toEqual([{ type: "text", text: "ok:read" }]);
    expect(connector.starts).toHaveLength(2);
    expect(connector.connections).toHaveLength(1);
  });

  it("a throwing listener does not break the manager", async () => {
    const { server } = make();
    server.subscribe(() => {
      throw new Error("bad listener");
    });
    expect((await server.callTool("read", {})).content).toBeDefined();
  });
});

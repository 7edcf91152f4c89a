/** Recovery queue, replay policy and heartbeat, on fake timers. */
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ManagedMcpServer, type ManagedMcpServerConfig } from "../../../../lib/mcp/index.ts";
import { RecoveryQueue } from "../../../../lib/mcp/recovery-queue.ts";
import { SpawnError } from "../../../../core/errors.ts";
import { fakeConnector, rejection, timerClock } from "../../../helpers/fake-mcp-connection.ts";

function make(plan: Array<"ok" | Error> = [], config: Partial<ManagedMcpServerConfig> = {}) {
  const connector = fakeConnector(plan);
  const server = new ManagedMcpServer({ name: "fake", command: "fake-server", ...config }, { clock: timerClock, connector });
  return { server, connector };
}
const spawnFail = () => new SpawnError("exited during start", { agentMessage: "x" });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("recovery queue", () => {
  const errors = { full: (n: number) => new Error(`full ${n}`), expired: (ms: number) => new Error(`expired ${ms}`) };

  it("is bounded, releases in one go and removes its abort listeners", async () => {
    const queue = new RecoveryQueue(timerClock, 2, 1_000, errors);
    const signal = new AbortController().signal;
    const a = queue.wait(signal);
    const b = queue.wait();
    expect((await rejection(queue.wait())).message).toBe("full 2");
    expect(getEventListeners(signal, "abort")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    queue.release();
    await Promise.all([a, b]);
    expect(queue.size).toBe(0);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects at the deadline, on abort and on fail", async () => {
    const queue = new RecoveryQueue(timerClock, 5, 1_000, errors);
    const late = rejection(queue.wait());
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await late).message).toBe("expired 1000");
    const controller = new AbortController();
    const aborted = rejection(queue.wait(controller.signal));
    controller.abort(new Error("esc"));
    expect((await aborted).message).toBe("esc");
    const failed = rejection(queue.wait());
    queue.fail(new Error("degraded"));
    expect((await failed).message).toBe("degraded");
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("calls while reconnecting", () => {
  it("safe calls wait and run after recovery; unsafe ones fail at once", async () => {
    const { server, connector } = make(["ok", spawnFail(), "ok"]);
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(0);
    const read = server.callTool("read", {});
    const put = server.callTool("put", {});
    const write = await rejection(server.callTool("write", {}));
    expect(write.message).toContain("write was not queued for replay");
    expect(server.status().queued).toBe(2);
    await vi.advanceTimersByTimeAsync(300);
    expect((await read).content).toEqual([{ type: "text", text: "ok:read" }]);
    expect((await put).content).toEqual([{ type: "text", text: "ok:put" }]);
  });

  it("the config allowlist makes a tool replayable", async () => {
    const { server, connector } = make(["ok"], { replayTools: ["write"] });
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(0);
    const write = server.callTool("write", {});
    await vi.advanceTimersByTimeAsync(100);
    expect((await write).content).toEqual([{ type: "text", text: "ok:write" }]);
  });

  it("queued calls get the degraded error when the attempts are spent", async () => {
    const { server, connector } = make(["ok", spawnFail(), spawnFail()], { maxReconnectAttempts: 2, queueDeadlineMs: 60_000 });
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(0);
    const read = rejection(server.callTool("read", {}));
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await read).reconnectStatus).toBe("degraded");
  });

  it("the queue limit applies", async () => {
    const { server, connector } = make(["ok"], { queueLimit: 1 });
    await server.start();
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(0);
    const first = server.callTool("read", {});
    expect((await rejection(server.callTool("read", {}))).message).toContain("1 calls are already waiting");
    await vi.advanceTimersByTimeAsync(100);
    await first;
  });
});

describe("in-flight calls on a lost connection", () => {
  it("a safe call is replayed once; lost twice it fails as 'not run again'", async () => {
    const { server, connector } = make();
    await server.start();
    connector.autoAnswer = false;
    connector.connections[0]!.autoAnswer = false;
    const call = rejection(server.callTool("read", {}));
    await vi.advanceTimersByTimeAsync(0);
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(100);
    expect(connector.connections[1]!.calls).toHaveLength(1);
    connector.connections[1]!.crash();
    const error = await call;
    expect(error.message).toContain("cut off twice");
    expect(error.recoverable).toBe(false);
  });

  it("a safe call cut off once is replayed and succeeds", async () => {
    const { server, connector } = make();
    await server.start();
    connector.connections[0]!.autoAnswer = false;
    const call = server.callTool("read", {});
    await vi.advanceTimersByTimeAsync(0);
    connector.connections[0]!.crash();
    await vi.advanceTimersByTimeAsync(100);
    expect((await call).content).toEqual([{ type: "text", text: "ok:read" }]);
  });

  it("an unsafe call is not replayed and is not recoverable", async () => {
    const { server, connector } = make();
    await server.start();
    connector.connections[0]!.autoAnswer = false;
    const call = rejection(server.callTool("write", {}));
    await vi.advanceTimersByTimeAsync(0);
    connector.connections[0]!.crash();
    const error = await call;
    expect(error.toJSON()).toMatchObject({ reconnect_status: "not_replayed", recoverable: false });
  });
});

describe("heartbeat", () => {
  it("pings only while a call is in flight", async () => {
    const { server, connector } = make([], { heartbeatIntervalMs: 500 });
    await server.start();
    const conn = connector.connections[0]!;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(conn.pings).toBe(0);
    conn.autoAnswer = false;
    const call = server.callTool("read", {});
    await vi.advanceTimersByTimeAsync(2_100);
    expect(conn.pings).toBe(4);
    conn.calls[0]!.settle({ content: [] });
    await call;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(conn.pings).toBe(4);
  });

  it("a hung server is noticed within interval + timeout (< 3 s), killed and replaced", async () => {
    const { server, connector } = make([], { heartbeatIntervalMs: 750, heartbeatTimeoutMs: 2_000 });
    await server.start();
    const conn = connector.connections[0]!;
    conn.autoAnswer = false;
    const call = server.callTool("read", {});
    await vi.advanceTimersByTimeAsync(0);
    conn.hang();
    await vi.advanceTimersByTimeAsync(2_749);
    expect(server.state).toBe("running");
    await vi.advanceTimersByTimeAsync(1);
    expect(server.state).toBe("reconnecting");
    expect(conn.alive).toBe(false);
    expect(server.status().lastError?.message).toContain("stopped answering");
    await vi.advanceTimersByTimeAsync(100);
    expect((await call).content).toEqual([{ type: "text", text: "ok:read" }]);
  });

  it("0 disables it", async () => {
    const { server, connector } = make([], { heartbeatIntervalMs: 0 });
    await server.start();
    connector.connections[0]!.autoAnswer = false;
    void server.callTool("read", {}).catch(() => {});
    await vi.advanceTimersByTimeAsync(10_000);
    expect(connector.connections[0]!.pings).toBe(0);
    await server.close();
  });
});

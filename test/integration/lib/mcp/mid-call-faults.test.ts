/**
 * Faults while running, against real server-everything behind the fault wrapper: crash (SIGKILL) and
 * hang (SIGSTOP) mid-call, calls made while reconnecting, degrading after the attempts are spent,
 * and coming back after a restart. No child may be left (helpers' afterEach checks every PID).
 */
import { describe, expect, it } from "vitest";
import { isAlive } from "../../../fixtures/faulty-mcp/command.ts";
import { managed, reach, rejection, text } from "../../../helpers/managed-mcp.ts";

const fastBackoff = { backoffMs: [20, 40, 80], maxReconnectAttempts: 3 };

describe("crash mid-call (SIGKILL)", () => {
  it("a read-only call is replayed after the reconnect and succeeds; the restart is reported once", async () => {
    const { server, faulty, events } = managed({ mode: "crash-mid-call", tool: "echo", times: 1 });
    const result = await server.callTool("echo", { message: "survives" });
    expect(text(result)).toBe("Echo: survives");
    const notice = server.takeNotice();
    expect(notice).toContain("was killed by SIGKILL");
    expect(notice).toContain("No server state was lost");
    expect(server.takeNotice()).toBeUndefined();
    expect(events.filter((e) => e.type === "state").map((e) => (e as { to: string }).to)).toEqual(["starting", "running", "reconnecting", "running"]);
    const status = server.status();
    expect(status.reconnects).toHaveLength(1);
    expect(status.reconnects[0]).toMatchObject({ ok: true, attempts: 1 });
    expect(isAlive(faulty.pids()[0]!)).toBe(false);
    expect(text(await server.callTool("echo", { message: "next" }))).toBe("Echo: next");
  });

  it("a call not safe to repeat fails with 'not replayed' and is not recoverable; the next call works", async () => {
    const { server } = managed({ mode: "crash-mid-call", tool: "toggle-simulated-logging", times: 1 });
    await server.start();
    expect(server.isSafeToRepeat("toggle-simulated-logging")).toBe(false);
    const error = await rejection(server.callTool("toggle-simulated-logging", {}));
    expect(error.toJSON()).toMatchObject({ error: "server_connection_lost", reconnect_status: "not_replayed", recoverable: false });
    expect(error.message).toContain("was not replayed");
    expect(error.agentMessage).toContain("Check whether toggle-simulated-logging took effect");
    await reach(server, "running");
    expect(text(await server.callTool("toggle-simulated-logging", {}))).toMatch(/logging/i);
  });

  it("crash is noticed at once (exit event), not by the heartbeat", async () => {
    const { server } = managed({ mode: "crash-mid-call", tool: "echo", times: 1 }, { heartbeatIntervalMs: 0 });
    await server.start();
    const lost = reach(server, "reconnecting");
    const call = server.callTool("echo", { message: "x" });
    expect(await lost).toBeLessThan(500);
    expect(text(await call)).toBe("Echo: x");
  });
});

describe("hang mid-call (SIGSTOP)", () => {
  it("the heartbeat notices within 3 s, kills the stopped child and replays the read-only call", async () => {
    const { server, faulty } = managed({ mode: "hang-mid-call", tool: "echo", times: 1 });
    await server.start();
    const stoppedPid = server.status().pid!;
    const lost = reach(server, "reconnecting", 6_000);
    const call = server.callTool("echo", { message: "unstuck" });
    const detectedAfter = await lost;
    expect(detectedAfter).toBeLessThan(3_000);
    expect(server.status().lastError?.message).toContain("stopped answering");
    expect(text(await call)).toBe("Echo: unstuck");
    expect(isAlive(stoppedPid)).toBe(false);
    expect(faulty.starts()).toBe(2);
  });
});

describe("reconnecting", () => {
  it("safe calls wait in the queue and run after recovery; unsafe ones fail at once", async () => {
    const { server } = managed({}, { backoffMs: [400] });
    await server.start();
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "reconnecting");
    const t0 = performance.now();
    const unsafe = await rejection(server.callTool("toggle-simulated-logging", {}));
    expect(performance.now() - t0).toBeLessThan(50);
    expect(unsafe.message).toContain("was not queued for replay");
    expect(unsafe.recoverable).toBe(true);
    const queued = server.callTool("echo", { message: "queued" });
    expect(server.status().queued).toBe(1);
    expect(text(await queued)).toBe("Echo: queued");
  });

  it("a queued call fails when its deadline passes", async () => {
    const { server, faulty } = managed({ mode: "hang-at-start" }, { backoffMs: [50], maxReconnectAttempts: 1, connectTimeoutMs: 5_000, queueDeadlineMs: 200 });
    faulty.heal();
    await server.start();
    faulty.sicken();
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "reconnecting");
    const error = await rejection(server.callTool("echo", { message: "late" }));
    expect(error.message).toContain("still reconnecting after 0.2s");
  });

  it("spent attempts degrade the server: structured fast failure, then restart brings it back", async () => {
    const { server, faulty, events } = managed({ mode: "exit-at-start" }, { ...fastBackoff, restartCommand: "/kota restart" });
    faulty.heal();
    await server.start();
    faulty.sicken();
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "degraded");
    expect(faulty.starts()).toBe(4);
    const error = await rejection(server.callTool("echo", { message: "x" }));
    expect(error.toJSON()).toMatchObject({
      error: "server_connection_lost",
      category: "connection_lost",
      reconnect_status: "degraded",
      reconnect_attempts: 3,
      recoverable: false,
      user_action: "Run /kota restart",
    });
    expect(error.message).toContain("reconnecting failed after 3 attempt(s)");
    expect(error.stderrTail).toContain("could not open the index database");
    expect(events.some((e) => e.type === "degraded")).toBe(true);
    expect(server.status().reconnects.at(-1)).toMatchObject({ ok: false, attempts: 3 });

    faulty.heal();
    await server.restart();
    expect(text(await server.callTool("echo", { message: "restored" }))).toBe("Echo: restored");
  });

  it("after the cool-down the next call tries again by itself", async () => {
    const { server, faulty } = managed({ mode: "exit-at-start" }, { ...fastBackoff, degradedCooldownMs: 250 });
    faulty.heal();
    await server.start();
    faulty.sicken();
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "degraded");
    faulty.heal();
    expect((await rejection(server.callTool("echo", { message: "x" }))).reconnectStatus).toBe("degraded");
    await new Promise((r) => setTimeout(r, 280));
    expect(text(await server.callTool("echo", { message: "auto" }))).toBe("Echo: auto");
  });

  it("the state cache reports what a restart lost (probe extras and tools)", async () => {
    let indexed = true;
    const { server, faulty } = managed({}, { probe: async () => ({ indexed }) });
    await server.start();
    indexed = false;
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "reconnecting");
    await reach(server, "running");
    const notice = server.takeNotice();
    expect(notice).toContain("indexed was true, now false");
    expect(faulty.starts()).toBe(2);
  });
});

/**
 * Shutdown: close() is idempotent, ends in-flight and queued calls with a clear error, sends SIGTERM
 * then SIGKILL after the grace period, and the process 'exit' hook leaves no child behind even when
 * the host never calls close().
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isAlive, waitGone } from "../../../fixtures/faulty-mcp/command.ts";
import { managed, reach, rejection } from "../../../helpers/managed-mcp.ts";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

describe("close()", () => {
  it("is idempotent and ends an in-flight call with a clear 'shut down' error", async () => {
    const { server } = managed({});
    await server.start();
    const pid = server.status().pid!;
    const call = rejection(server.callTool("trigger-long-running-operation", { duration: 10, steps: 10 }));
    await new Promise((r) => setTimeout(r, 100));
    const first = server.close();
    const second = server.close();
    expect(second).toBe(first);
    const error = await call;
    expect(error.toJSON()).toMatchObject({ error: "server_connection_lost", reconnect_status: "closed", recoverable: false });
    expect(error.message).toContain("was shut down");
    await first;
    expect(isAlive(pid)).toBe(false);
    expect(server.state).toBe("closed");
    expect((await rejection(server.callTool("echo", { message: "x" }))).reconnectStatus).toBe("closed");
    await expect(server.restart()).rejects.toThrow(/shut down/);
  });

  it("SIGKILLs a child that ignores SIGTERM (stopped) after the grace period", async () => {
    const { server } = managed({ mode: "hang-mid-call", tool: "echo" }, { heartbeatIntervalMs: 0, closeGraceMs: 300 });
    await server.start();
    const pid = server.status().pid!;
    const call = rejection(server.callTool("echo", { message: "stuck" }));
    await new Promise((r) => setTimeout(r, 150));
    const t0 = performance.now();
    await server.close();
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(1_500);
    expect(isAlive(pid)).toBe(false);
    expect((await call).reconnectStatus).toBe("closed");
  });

  it("fails queued calls when closed while reconnecting, and cancels a start in progress", async () => {
    const { server, faulty } = managed({ mode: "hang-at-start" }, { backoffMs: [10], connectTimeoutMs: 10_000 });
    faulty.heal();
    await server.start();
    faulty.sicken();
    process.kill(server.status().pid!, "SIGKILL");
    await reach(server, "reconnecting");
    const queued = rejection(server.callTool("echo", { message: "x" }));
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    await server.close();
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect((await queued).reconnectStatus).toBe("closed");
    expect(await waitGone(faulty.pids(), 500)).toEqual([]);
  });
});

describe("process exit", () => {
  it("the exit hook kills children when the host exits without close()", async () => {
    const script = join(repoRoot, "test/fixtures/faulty-mcp/exit-without-close.ts");
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", join(repoRoot, "node_modules/tsx/dist/loader.mjs"), script],
        { cwd: repoRoot, timeout: 15_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    const pid = Number(/child pid (\d+)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(await waitGone([pid], 2_000)).toEqual([]);
  });
});

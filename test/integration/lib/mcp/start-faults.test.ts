/**
 * Start faults against a real server (server-everything) behind the fault wrapper: not installed,
 * exits at start, hangs at start, wrong protocol. For each: the error the agent gets, that the next
 * call works once the server is healthy, and that no child is left (checked in helpers' afterEach).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_CONNECTION_LOST } from "../../../../lib/mcp/index.ts";
import { classifyError, failure } from "pi-governor";
import { FAULTY_SERVER, isAlive } from "../../../fixtures/faulty-mcp/command.ts";
import { managed, rejection, text } from "../../../helpers/managed-mcp.ts";

describe("start faults", () => {
  it("not installed: says what to install, fails fast while degraded, works once the command exists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "no-such-server-"));
    const command = join(dir, "kotadb-server");
    const { server } = managed({}, { name: "kota", command, args: [], installHint: "Bun (https://bun.sh)", restartCommand: "/kota restart" });
    try {
      const error = await rejection(server.callTool("echo", { message: "x" }));
      expect(error.category).toBe("spawn");
      expect(error.message).toContain(`command not found: ${command}`);
      expect(error.agentMessage).toContain("Install Bun (https://bun.sh)");
      expect(server.state).toBe("degraded");
      // The observation the agent sees.
      const obs = failure("kota_echo", classifyError(error));
      expect(obs.message).toContain("Install Bun (https://bun.sh)");

      const t0 = performance.now();
      const again = await rejection(server.callTool("echo", { message: "x" }));
      expect(performance.now() - t0).toBeLessThan(50);
      expect(again.toJSON()).toMatchObject({
        error: SERVER_CONNECTION_LOST,
        category: "connection_lost",
        reconnect_status: "degraded",
        recoverable: false,
        user_action: "Run /kota restart",
      });
      expect(again.agentMessage).toContain("Install Bun");

      writeFileSync(command, `#!/bin/sh\nexec "${process.execPath}" "${FAULTY_SERVER}" "$@"\n`);
      chmodSync(command, 0o755);
      await server.restart();
      expect(text(await server.callTool("echo", { message: "installed" }))).toBe("Echo: installed");
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits at start: the error carries the exit code and stderr tail; after the cool-down the next call starts it", async () => {
    const { server, faulty } = managed({ mode: "exit-at-start", times: 1 }, { degradedCooldownMs: 300 });
    const error = await rejection(server.callTool("echo", { message: "x" }));
    expect(error.category).toBe("spawn");
    expect(error.message).toContain("exited with code 3 during start");
    expect(error.stderrTail).toContain("could not open the index database");
    expect(error.stderrTail!.length).toBeLessThanOrEqual(500);
    expect(server.status().lastError?.message).toContain("exited with code 3");
    expect(isAlive(faulty.pids()[0]!)).toBe(false);

    const degraded = await rejection(server.callTool("echo", { message: "x" }));
    expect(degraded.reconnectStatus).toBe("degraded");
    expect(degraded.retryAfterMs).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 320));
    expect(text(await server.callTool("echo", { message: "back" }))).toBe("Echo: back");
    expect(faulty.starts()).toBe(2);
  });

  it("hangs at start: killed at the connect timeout with advice on what to check; restart brings it back", async () => {
    const { server, faulty } = managed({ mode: "hang-at-start", times: 1 }, { connectTimeoutMs: 3_000, restartCommand: "/kota restart" });
    const t0 = performance.now();
    const error = await rejection(server.callTool("echo", { message: "x" }));
    expect(performance.now() - t0).toBeLessThan(6_000);
    expect(error.category).toBe("timeout");
    expect(error.message).toBe(
      `everything failed to start within 3s. Check that '${process.execPath}' is installed and working (${process.execPath} ${FAULTY_SERVER}). Run /kota restart to retry.`,
    );
    expect(isAlive(faulty.pids()[0]!)).toBe(false);
    await server.restart();
    expect(server.state).toBe("running");
    expect(text(await server.callTool("echo", { message: "ok" }))).toBe("Echo: ok");
  });

  it("wrong protocol (non-JSON on stdout): fails fast as a spawn error, not a 10 s timeout", async () => {
    const { server, faulty } = managed({ mode: "non-json" });
    const t0 = performance.now();
    const error = await rejection(server.callTool("echo", { message: "x" }));
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(error.category).toBe("spawn");
    expect(error.message).toContain("wrong protocol");
    expect(error.message).toContain("Welcome to");
    faulty.heal();
    await server.restart();
    expect(text(await server.callTool("echo", { message: "mcp now" }))).toBe("Echo: mcp now");
  });

  it("passes env explicitly: configured variables reach the server, the host's others do not", async () => {
    process.env.PI_GOVERNOR_HOST_SECRET = "must-not-leak";
    try {
      const { server } = managed({ extraEnv: { PI_GOVERNOR_PASSED: "yes" } });
      const env = text(await server.callTool("get-env", {}));
      expect(env).toContain("PI_GOVERNOR_PASSED");
      expect(env).toContain("PATH");
      expect(env).not.toContain("must-not-leak");
    } finally {
      delete process.env.PI_GOVERNOR_HOST_SECRET;
    }
  });

  it("starts lazily: nothing is spawned before the first use", async () => {
    const { server, faulty } = managed({});
    await new Promise((r) => setTimeout(r, 100));
    expect(server.state).toBe("stopped");
    expect(faulty.starts()).toBe(0);
    const tools = await server.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(server.status()).toMatchObject({ state: "running", serverVersion: { name: "mcp-servers/everything" } });
  });
});

/**
 * kill and stop against the real server-everything under the mcp preset: the fault reaches the
 * managed server's real process mid-call, the manager sees a real crash or pause, and nothing is
 * left stopped or running after shutdown.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import type { Governor } from "pi-governor";
import { liveChildCount } from "../../../../lib/mcp/index.ts";
import { chaosControllerOf } from "../../../../plugins/chaos/index.ts";
import { mcpPreset } from "../../../../presets/index.ts";
import { type FaultyServer, faultyServer, waitGone } from "../../../fixtures/faulty-mcp/command.ts";

const LONG_TOOL = "everything_trigger-long-running-operation";
let work: string;
let faulty: FaultyServer;
let gov: Governor | undefined;

async function build(chaos: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Governor> {
  work = mkdtempSync(join(tmpdir(), "chaos-kill-"));
  faulty = faultyServer({ mode: "none", server: "everything" });
  gov = await createGovernor({
    preset: mcpPreset,
    cwd: work,
    agentDir: join(work, "agent"),
    layers: [
      {
        kind: "global",
        source: "test",
        data: {
          retry: { maxAttempts: 1 },
          blobs: { dir: join(work, "blobs") },
          mcp: { servers: { everything: { command: faulty.command, args: faulty.args, env: faulty.env } } },
          chaos: { enabled: true, seed: 1, ...chaos },
          ...extra,
        },
      },
    ],
  });
  return gov;
}

async function shutdown(): Promise<number> {
  const started = performance.now();
  await gov?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: work, reason: "quit" });
  return performance.now() - started;
}

afterEach(async () => {
  await shutdown();
  gov = undefined;
  expect(await waitGone(faulty.pids())).toEqual([]);
  expect(liveChildCount()).toBe(0);
  faulty.cleanup();
  rmSync(work, { recursive: true, force: true });
});

function faultsOf(obs: { details: Record<string, unknown> }): Array<Record<string, unknown>> {
  return (obs.details.chaos as { faults: Array<Record<string, unknown>> }).faults;
}

describe("chaos kill and stop on a managed MCP server", () => {
  it("kill: SIGKILL mid-call is a real crash: the manager restarts the server and replays the read-only call", async () => {
    const g = await build({ faults: [{ type: "kill", tools: "everything_trigger-*", probability: 1, afterMinMs: 100, afterMaxMs: 100 }] });
    const [firstPid] = faulty.pids();
    const obs = await g.pipeline.callTool(LONG_TOOL, { duration: 1, steps: 1 });
    // The tool is read-only, so the manager's recovery queue replays it on the new process (retry is off).
    expect(obs.status).toBe("SUCCESS");
    expect(faultsOf(obs)).toEqual([{ type: "kill", rule: 0, attempt: 1, ms: 100, pid: firstPid }]);
    expect(await waitGone([firstPid!])).toEqual([]);
    expect(faulty.pids().length).toBe(2);
    expect(g.logs.some((r) => r.message.includes("injected kill into everything_trigger-long-running-operation"))).toBe(true);
  }, 30_000);

  it("stop: SIGSTOP mid-call pauses the server for stopMs, then the call completes", async () => {
    const g = await build({ faults: [{ type: "stop", tools: "everything_trigger-*", probability: 1, afterMinMs: 50, afterMaxMs: 50, stopMs: 400 }] });
    const obs = await g.pipeline.callTool(LONG_TOOL, { duration: 0.3, steps: 1 });
    expect(obs.status).toBe("SUCCESS");
    // Stopped 50 ms in for 400 ms: the answer cannot come before the SIGCONT (the 300 ms of work overlap the pause).
    expect(obs.durationMs).toBeGreaterThanOrEqual(440);
    expect(faultsOf(obs)).toEqual([{ type: "stop", rule: 0, attempt: 1, ms: 50, stopMs: 400, pid: faulty.pids()[0] }]);
    expect(chaosControllerOf(g.pipeline)!.stoppedCount).toBe(0);
    expect(execFileSync("ps", ["-o", "stat=", "-p", String(faulty.pids()[0])], { encoding: "utf8" }).trim()).not.toMatch(/^T/);
  }, 30_000);

  it("a server still stopped at shutdown is resumed first, so it exits on SIGTERM without the 2 s SIGKILL fallback", async () => {
    const g = await build(
      { faults: [{ type: "stop", tools: "everything_trigger-*", probability: 1, afterMinMs: 20, afterMaxMs: 20, stopMs: 60_000 }] },
      { timeout: { defaultMs: 500 }, breaker: { enabled: false } },
    );
    const obs = await g.pipeline.callTool(LONG_TOOL, { duration: 5, steps: 1 });
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    expect(chaosControllerOf(g.pipeline)!.stoppedCount).toBe(1);
    const took = await shutdown();
    gov = undefined;
    expect(chaosControllerOf(g.pipeline)!.stoppedCount).toBe(0);
    expect(took).toBeLessThan(1_900);
  }, 30_000);
});

/**
 * The managed server and the host process's lifetime, in a real child Node process with no other
 * handles: a call waiting through a reconnect keeps the process alive until it resolves (the
 * manager's timers are unref'd, so without a held handle Node exits mid-await with code 13), and an
 * idle or closed server never keeps it alive afterwards.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { faultyServer, waitGone } from "../../../fixtures/faulty-mcp/command.ts";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const script = join(repoRoot, "test/fixtures/faulty-mcp/call-through-reconnect.ts");

function run(stateDir: string, after: "close" | "idle", health = "crash"): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", join(repoRoot, "node_modules/tsx/dist/loader.mjs"), script, stateDir, after, health],
      { cwd: repoRoot, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr, ms: performance.now() - started }),
    );
  });
}

describe("process lifetime", () => {
  for (const after of ["close", "idle"] as const) {
    it(`a call cut off by a crash is replayed after the reconnect and the process exits 0 by itself (${after} after the call)`, async () => {
      const faulty = faultyServer({});
      try {
        const { code, stdout, stderr } = await run(faulty.stateDir, after);
        expect(stdout, stderr).toContain("state reconnecting");
        expect(code, `exit code (13 = Node gave up on an unsettled await); stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
        expect(stdout).toContain('result [{"type":"text","text":"Echo: survived"}]');
        expect(stdout).toContain("done");
        expect(faulty.starts()).toBe(2);
        // Both servers are gone: the crashed one, and the replacement (closed, or killed at exit when idle).
        expect(await waitGone(faulty.pids())).toEqual([]);
      } finally {
        faulty.cleanup();
      }
    });
  }

  it("an idle server that is never closed does not keep the process alive (its child is killed at exit)", async () => {
    const faulty = faultyServer({});
    try {
      const { code, stdout, stderr } = await run(faulty.stateDir, "idle", "healthy");
      expect(code, `exit code (null = still running at the 20 s limit); stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
      expect(stdout).toContain("done");
      expect(stdout).not.toContain("state reconnecting");
      expect(await waitGone(faulty.pids())).toEqual([]);
    } finally {
      faulty.cleanup();
    }
  });
});

/**
 * The real `pi` CLI in print mode (`pi -p`) with the mcp preset and a real MCP server (server-everything
 * behind the fault wrapper) that is SIGKILLed in the middle of the model's tool call. Print mode has no
 * other live handle while the manager waits for the reconnect (its timers are unref'd): without a held
 * handle pi exits in the middle of the run with nothing printed. The run must finish with the replayed
 * tool result and exit 0, and leave no server behind.
 */
import { describe, expect, it } from "vitest";
import { faultyServer, waitGone } from "../fixtures/faulty-mcp/command.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

describe("pi -p with the mcp preset and a server that dies mid-call", () => {
  it("finishes with the replayed tool result and exits 0; no server process is left", async () => {
    const faulty = faultyServer({ mode: "crash-mid-call", tool: "echo", times: 1 });
    try {
      const servers = {
        everything: {
          command: faulty.command,
          args: faulty.args,
          env: faulty.env,
          // Declared: no start at load, so the first start (and the crash) happens in the model's call.
          tools: [{ name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }],
          // A backoff long enough that print mode would exit while waiting if nothing held it.
          maxReconnectAttempts: 3,
        },
      };
      const run = await runPiCli({
        extensions: [repoRoot],
        script: [{ toolCall: { name: "everything_echo", arguments: { message: "through the crash" } } }, { text: "the echo came back" }],
        prompt: "echo something",
        env: { PI_GOVERNOR_PRESET: "mcp", PI_GOVERNOR_CONFIG: JSON.stringify({ mcp: { servers } }) },
        timeoutMs: 90_000,
      });
      expect(run.code, `exit code\nstderr:\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("the echo came back");
      const result = (run.calls.at(-1)?.messages ?? []).find((m) => m.role === "toolResult" && m.toolName === "everything_echo");
      expect(JSON.stringify(result?.content)).toContain("Echo: through the crash");
      expect(faulty.starts()).toBe(2);
      expect(await waitGone(faulty.pids())).toEqual([]);
    } finally {
      faulty.cleanup();
    }
  }, 120_000);
});

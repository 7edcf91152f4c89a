/**
 * A server from pi's own mcp.json handed to pi-governor's manager (`mcp.fromPi`), in the real `pi`
 * CLI (print mode): the server (server-everything behind the fault wrapper) hangs in the middle of
 * the model's call, pings included; pi-governor notices within its heartbeat limit, restarts it and
 * replays the call, and the run ends with the answer. The entry is off in pi's file, so on pi 1.x
 * pi itself does not run it (older pi does not read mcp.json at all).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { faultyServer, waitGone } from "../fixtures/faulty-mcp/command.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

describe("mcp.fromPi: a hung server from pi's mcp.json, managed by pi-governor", () => {
  it("is restarted and the call replayed within seconds; the run exits 0 and leaves no process", async () => {
    const faulty = faultyServer({ mode: "hang-mid-call", tool: "echo", times: 1 });
    const agentDir = mkdtempSync(join(tmpdir(), "pigov-frompi-"));
    try {
      mkdirSync(agentDir, { recursive: true });
      writeFileSync(
        join(agentDir, "mcp.json"),
        JSON.stringify({ mcpServers: { everything: { command: faulty.command, args: faulty.args, env: faulty.env, enabled: false } } }),
      );
      const echo = { name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } };
      writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "mcp", mcp: { fromPi: [{ name: "everything", tools: [echo] }] } }));
      const started = Date.now();
      const run = await runPiCli({
        extensions: [repoRoot],
        script: [{ toolCall: { name: "everything_echo", arguments: { message: "through the hang" } } }, { text: "the echo came back" }],
        prompt: "echo something",
        env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined },
        timeoutMs: 90_000,
      });
      const seconds = (Date.now() - started) / 1000;
      expect(run.code, `exit code\nstderr:\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("the echo came back");
      const result = (run.calls.at(-1)?.messages ?? []).find((m) => m.role === "toolResult" && m.toolName === "everything_echo");
      expect(JSON.stringify(result?.content)).toContain("Echo: through the hang");
      expect(faulty.starts()).toBe(2);
      expect(run.stderr).not.toContain("runs twice");
      expect(await waitGone(faulty.pids())).toEqual([]);
      console.log(`hung server recovered; whole pi run ${seconds.toFixed(1)} s`);
    } finally {
      faulty.cleanup();
      rmSync(agentDir, { recursive: true, force: true });
    }
  }, 120_000);
});

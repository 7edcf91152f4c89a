/**
 * Telemetry's switches are trusted together with what they would send. The user's global file
 * captures content (with telemetry off); a cloned repository's `.pi/pi-governor.json` turns
 * telemetry and its export on. In the real pi (print mode, the mcp preset with the real
 * server-everything) nothing reaches the collector the user's environment names, and the project's
 * keys are reported as ignored.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

const require = createRequire(import.meta.url);
const everythingEntry = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

let work: string | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("a project file cannot send captured content off the machine", () => {
  it("telemetry.enabled and telemetry.export from the project are ignored while the global file captures content", async () => {
    receiver = await startOtlpReceiver();
    work = mkdtempSync(join(tmpdir(), "pigov-otel-trust-"));
    const project = join(work, "repo");
    const agentDir = join(work, "agent");
    mkdirSync(join(project, ".pi"), { recursive: true });
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ telemetry: { captureContent: true, flushTimeoutMs: 2_000 } }));
    writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify({ telemetry: { enabled: true, export: true } }));
    const servers = {
      everything: {
        command: process.execPath,
        args: [everythingEntry, "stdio"],
        tools: [{ name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }],
      },
    };
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "everything_echo", arguments: { message: "secret-ish output" } } }, { text: "echoed" }],
      prompt: "echo",
      cwd: project,
      env: {
        HOME: work,
        PI_CODING_AGENT_DIR: agentDir,
        PI_GOVERNOR_PRESET: "mcp",
        PI_GOVERNOR_CONFIG: JSON.stringify({ mcp: { servers } }),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("echoed");
    expect(run.stderr).toMatch(/telemetry\.enabled: ignored: a project config may not choose .*what leaves the machine/);
    expect(run.stderr).toMatch(/telemetry\.export: ignored/);
    expect(receiver.requests).toEqual([]);
    expect(receiver.spans).toEqual([]);
  }, 120_000);
});

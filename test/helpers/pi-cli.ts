import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piHost, repoRoot } from "./pi-host.ts";

export { repoRoot };
/** The `pi` CLI entry of the pi under test (see pi-host.ts); run it with process.execPath. */
export const piCli = piHost.cliPath;
const scriptedProvider = join(repoRoot, "test/fixtures/scripted-provider.ts");

/** One scripted model step (see test/fixtures/scripted-provider.ts). */
export type ScriptStep = { text: string } | { toolCall: { name: string; arguments: Record<string, unknown> } };

export interface PiCliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What the model was sent on each call: tool names and messages. */
  calls: Array<{ tools: string[]; messages: Array<{ role: string; content?: unknown; toolName?: string }> }>;
}

export interface PiCliOptions {
  /** Extra `-e` paths (the package under test, fixture extensions). */
  extensions: string[];
  script: ScriptStep[];
  prompt: string;
  cwd?: string;
  /** Extra environment; PATH is kept unless overridden. */
  env?: Record<string, string | undefined>;
  /** Hard limit in milliseconds. Default 60000. */
  timeoutMs?: number;
}

/**
 * Runs the real `pi` CLI in print mode (`-p --no-session`) with a throwaway PI_CODING_AGENT_DIR and
 * the scripted provider, the way a user runs `pi -e <path>`. Never touches the user's ~/.pi.
 */
export async function runPiCli(options: PiCliOptions): Promise<PiCliRun> {
  const work = mkdtempSync(join(tmpdir(), "pigov-cli-"));
  const agentDir = join(work, "agent");
  const scriptPath = join(work, "script.json");
  const logPath = join(work, "calls.jsonl");
  writeFileSync(scriptPath, JSON.stringify(options.script));
  const args = [piCli, "-p", "--no-session", "-e", scriptedProvider, ...options.extensions.flatMap((e) => ["-e", e]), "--provider", "scripted", "--model", "scripted-1", options.prompt];
  try {
    return await new Promise<PiCliRun>((resolvePromise, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: options.cwd ?? work,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, SCRIPTED_KEY: "x", PI_GOVERNOR_SCRIPT: scriptPath, PI_GOVERNOR_SCRIPT_LOG: logPath, ...options.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        const calls = existsSync(logPath)
          ? readFileSync(logPath, "utf8")
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : [];
        resolvePromise({ code, stdout, stderr, calls });
      });
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piHost, repoRoot } from "./pi-host.ts";

export { repoRoot };
/** The `pi` CLI entry of the pi under test (see pi-host.ts); run it with process.execPath. */
export const piCli = piHost.cliPath;
const scriptedProvider = join(repoRoot, "test/fixtures/scripted-provider.ts");

/** One scripted model step (see test/fixtures/scripted-provider.ts). */
export type ScriptCall = { name: string; arguments: Record<string, unknown>; id?: string };
export type ScriptStep = ({ text: string } | { toolCall: ScriptCall } | { toolCalls: ScriptCall[] } | { error: string }) & { delayMs?: number };

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
  /** The message(s) pi is given; print mode runs them in order (RPC mode sends the first; use `then` for more). */
  prompt: string | string[];
  cwd?: string;
  /** Extra environment; PATH is kept unless overridden. */
  env?: Record<string, string | undefined>;
  /** Hard limit in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Extra `pi` arguments after the model's (e.g. `--tools read,bash,grep`). */
  args?: string[];
  /** Print mode only: keep the session in this file (`--session <file>`, created or resumed) instead of `--no-session`. */
  sessionFile?: string;
}

/** The `pi` arguments that load the scripted provider and the extensions under test, before the prompt. */
function scriptedArgs(options: PiCliOptions): string[] {
  return ["-e", scriptedProvider, ...options.extensions.flatMap((e) => ["-e", e]), "--provider", "scripted", "--model", "scripted-1", ...(options.args ?? [])];
}

/** Resolves with the child's exit code once it has closed; kills it (SIGKILL) after `timeoutMs` (default 60000). */
function closed(child: ChildProcess, timeoutMs = 60_000): Promise<number | null> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
}

/**
 * Runs the real `pi` CLI in print mode (`-p --no-session`, or `--session <file>`) with a throwaway PI_CODING_AGENT_DIR and
 * the scripted provider, the way a user runs `pi -e <path>`. Never touches the user's ~/.pi.
 */
export async function runPiCli(options: PiCliOptions): Promise<PiCliRun> {
  const work = mkdtempSync(join(tmpdir(), "pigov-cli-"));
  const agentDir = join(work, "agent");
  const scriptPath = join(work, "script.json");
  const logPath = join(work, "calls.jsonl");
  writeFileSync(scriptPath, JSON.stringify(options.script));
  const session = options.sessionFile ? ["--session", options.sessionFile] : ["--no-session"];
  const args = [piCli, "-p", ...session, ...scriptedArgs(options), ...[options.prompt].flat()];
  try {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? work,
      env: {
        ...process.env,
        PI_CODING_AGENT_DIR: agentDir,
        SCRIPTED_KEY: "x",
        PI_GOVERNOR_SCRIPT: scriptPath,
        PI_GOVERNOR_SCRIPT_LOG: logPath,
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const code = await closed(child, options.timeoutMs);
    const calls = existsSync(logPath)
      ? readFileSync(logPath, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
    return { code, stdout, stderr, calls };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One JSON line pi printed on stdout in RPC mode (a response, an agent event, an extension UI request). */
export type RpcLine = { type: string; [key: string]: unknown };

export interface PiRpcRun {
  code: number | null;
  /** Every JSON line of stdout, in order. */
  lines: RpcLine[];
  stderr: string;
}

/**
 * Runs the real `pi --mode rpc --no-session` the way an IDE embeds it: sends one `prompt` command
 * as a JSON line on stdin, reads the JSON lines on stdout until the agent's `agent_end`, sends the
 * `then` commands one by one (each after the previous one's response), then closes stdin (pi shuts
 * the session down and exits). With `confirmAnswer`, every confirm dialog is answered that way; with
 * `uiAnswer`, every other dialog (select, editor, input) as it says. Same throwaway agent dir and scripted provider as
 * {@link runPiCli}.
 */
export async function runPiRpc(
  options: PiCliOptions & {
    then?: Array<Record<string, unknown>>;
    confirmAnswer?: boolean;
    /** The client's answer to any other dialog (`select`, `editor`, `input`): the response's fields (`value`, `cancelled`); undefined leaves it unanswered. */
    uiAnswer?: (request: RpcLine) => Record<string, unknown> | undefined;
    /** Sees every line as it comes; `send` writes a command to pi's stdin at once (a command in the middle of a run). */
    onLine?: (line: RpcLine, send: (command: Record<string, unknown>) => void) => void;
    /**
     * Once every `then` command was sent, stdin is closed (pi exits) at the first line this accepts,
     * instead of at once (a `then` prompt starts a run that must finish first: close at its `agent_end`).
     */
    closeWhen?: (line: RpcLine) => boolean;
  },
): Promise<PiRpcRun> {
  const work = mkdtempSync(join(tmpdir(), "pigov-rpc-"));
  const scriptPath = join(work, "script.json");
  writeFileSync(scriptPath, JSON.stringify(options.script));
  const args = [piCli, "--mode", "rpc", "--no-session", ...scriptedArgs(options)];
  try {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? work,
      env: { ...process.env, PI_CODING_AGENT_DIR: join(work, "agent"), SCRIPTED_KEY: "x", PI_GOVERNOR_SCRIPT: scriptPath, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const lines: RpcLine[] = [];
    const later = [...(options.then ?? [])];
    let sent = 0;
    /** Every `then` command was sent; waiting for `closeWhen`. */
    let closing = false;
    let pending = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      pending += d.toString("utf8");
      // RPC framing: records end with LF only (U+2028 inside JSON strings is not a separator).
      let end: number;
      while ((end = pending.indexOf("\n")) >= 0) {
        const record = pending.slice(0, end).replace(/\r$/, "");
        pending = pending.slice(end + 1);
        if (!record.trim()) continue;
        const line = JSON.parse(record) as RpcLine;
        lines.push(line);
        options.onLine?.(line, (command) => child.stdin.write(`${JSON.stringify(command)}\n`));
        // The client's side of pi's confirm dialog (only when the test says how to answer).
        if (line.type === "extension_ui_request" && line.method === "confirm" && options.confirmAnswer !== undefined) {
          child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: line.id, confirmed: options.confirmAnswer })}\n`);
        } else if (line.type === "extension_ui_request" && line.method !== "confirm" && options.uiAnswer) {
          const answer = options.uiAnswer(line);
          if (answer) child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: line.id, ...answer })}\n`);
        }
        const answered = line.type === "response" && line.id === `then-${sent}`;
        if ((line.type === "agent_end" && sent === 0) || answered) {
          const next = later.shift();
          if (next) child.stdin.write(`${JSON.stringify({ ...next, id: `then-${++sent}` })}\n`);
          else if (!options.closeWhen) child.stdin.end();
          else closing = true;
        } else if (closing && options.closeWhen?.(line)) child.stdin.end();
      }
    });
    child.stderr.on("data", (d) => (stderr += d));
    const exit = closed(child, options.timeoutMs);
    child.stdin.write(`${JSON.stringify({ id: "req-1", type: "prompt", message: [options.prompt].flat()[0] })}\n`);
    return { code: await exit, lines, stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

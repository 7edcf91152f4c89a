/**
 * A run is what the user started: pi's automatic retries of a provider error (a 503, a 429) start
 * another low-level agent run (`agent_start`) inside it, and must keep the per-run counts and a stop.
 * In the real pi: print mode with the scripted provider, and the SDK with pi-ai's faux provider, with
 * pi's retry on (a few milliseconds of backoff) and `perRun: 3`.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createExtension } from "pi-governor/host";
import { leanPreset } from "../../presets/lean/index.ts";
import { repoRoot, runPiCli, type ScriptCall } from "../helpers/pi-cli.ts";
import { isEarendilPi } from "../helpers/pi-host.ts";
import { startPiSession } from "../helpers/pi-session.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-retries-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(project, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  // pi's own automatic retry, on as by default, with a short backoff.
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: true, maxRetries: 3, baseDelayMs: 5 } }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined });
const policies = (limit: Record<string, unknown>) =>
  writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies: { limits: [{ tools: "*", ...limit }] } }));
/** Three `touch` commands in one model message; each file that exists is a call that ran. */
const batch = (tag: string): { toolCalls: ScriptCall[] } => ({
  toolCalls: [1, 2, 3].map((n) => ({ name: "bash", arguments: { command: `touch ran-${tag}-${n}.txt` } })),
});
const ran = () => readdirSync(project).filter((f) => f.startsWith("ran-"));

describe("per-run limits across pi's automatic retries (print mode)", () => {
  it("perRun 3 with a 503 and a 429 retried in between: exactly 3 calls run", async () => {
    policies({ perRun: 3 });
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [batch("a"), { error: "503 Service Unavailable" }, batch("b"), { error: "429 Too Many Requests" }, batch("c"), { text: "done" }],
      prompt: "go",
      cwd: project,
      env: env(),
    });
    expect(run.code).toBe(0);
    // pi retried both errors (the model was asked six times), and the run went on to its end.
    expect(run.calls).toHaveLength(6);
    expect(ran().sort()).toEqual(["ran-a-1.txt", "ran-a-2.txt", "ran-a-3.txt"]);
    const refused = run.calls
      .at(-1)!
      .messages.filter((m) => m.role === "toolResult")
      .map((m) => JSON.stringify(m.content))
      .filter((t) => t.includes("this run reached its limit of 3 tool calls (policies.limits[0]: perRun 3)"));
    expect(refused).toHaveLength(6);
  }, 90_000);

  it("a stop holds across a retry: nothing runs after it in the same run", async () => {
    policies({ perRun: 2, onExceed: "stop" });
    await runPiCli({
      extensions: [repoRoot],
      script: [batch("a"), { error: "503 Service Unavailable" }, batch("b"), { text: "done" }],
      prompt: "go",
      cwd: project,
      env: env(),
    });
    expect(ran().sort()).toEqual(["ran-a-1.txt", "ran-a-2.txt"]);
  }, 90_000);

  it("the user's next prompt is a new run: its calls are counted afresh", async () => {
    policies({ perRun: 3 });
    await runPiCli({
      extensions: [repoRoot],
      script: [batch("a"), { text: "first done" }, batch("b"), { text: "second done" }],
      prompt: ["first", "second"],
      cwd: project,
      env: env(),
    });
    expect(ran()).toHaveLength(6);
  }, 90_000);
});

describe("per-run limits across pi's own continuations (SDK)", () => {
  const touch = (tag: string) =>
    fauxAssistantMessage(
      [1, 2, 3].map((n) => fauxToolCall("bash", { command: `touch ran-${tag}-${n}.txt` })),
      { stopReason: "toolUse" },
    );
  const failed = (errorMessage: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage });
  const governed = () =>
    createExtension(leanPreset, {
      governorOptions: { layers: [{ kind: "global", source: "test", data: { policies: { limits: [{ tools: "*", perRun: 3 }] } } }] },
    });

  it("perRun 3 with a 503 and a 429 retried in between: exactly 3 calls run", async () => {
    const runs: string[] = [];
    const pi = await startPiSession({
      cwd: project,
      retry: { maxRetries: 3, baseDelayMs: 5 },
      extensions: [governed(), (api) => void api.on("agent_start", () => void runs.push("agent_start"))],
      responses: [
        touch("a"),
        failed("503 Service Unavailable"),
        touch("b"),
        failed("429 Too Many Requests"),
        touch("c"),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    try {
      await pi.session.prompt("go");
      await pi.session.agent.waitForIdle();
      // pi started three low-level runs for one prompt: the first and one per retry.
      expect(runs).toHaveLength(3);
      expect(ran().sort()).toEqual(["ran-a-1.txt", "ran-a-2.txt", "ran-a-3.txt"]);
      expect(existsSync(join(project, "ran-c-1.txt"))).toBe(false);
    } finally {
      await pi.dispose();
    }
  }, 90_000);

  it("a context overflow that pi compacts and retries keeps the counts", async () => {
    const runs: string[] = [];
    const pi = await startPiSession({
      cwd: project,
      autoCompaction: true,
      keepRecentTokens: 1,
      extensions: [governed(), (api) => void api.on("agent_start", () => void runs.push("agent_start"))],
      responses: [
        touch("a"),
        failed("prompt is too long: 300000 tokens > 200000 maximum"),
        fauxAssistantMessage([fauxText("summary of the work so far")]), // pi's compaction summary
        touch("b"),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    try {
      await pi.session.prompt("go");
      // pi 0.73 continues after the compaction from a timer, once prompt() has returned.
      await vi.waitFor(() => expect(runs).toHaveLength(2), { timeout: 10_000 });
      await pi.session.agent.waitForIdle();
      await vi.waitFor(() => expect(pi.contexts).toHaveLength(5), { timeout: 10_000 });
      await pi.session.agent.waitForIdle();
      expect(ran().sort()).toEqual(["ran-a-1.txt", "ran-a-2.txt", "ran-a-3.txt"]);
    } finally {
      await pi.dispose();
    }
  }, 90_000);

  it("a run an extension starts with a custom message is a new run where pi says its runs settle (0.87+)", async () => {
    let api: ExtensionAPI | undefined;
    const pi = await startPiSession({
      cwd: project,
      extensions: [governed(), (a) => void (api = a)],
      responses: [touch("a"), fauxAssistantMessage([fauxText("first done")]), touch("b"), fauxAssistantMessage([fauxText("second done")])],
    });
    try {
      await pi.session.prompt("go");
      await pi.session.agent.waitForIdle();
      // pi starts the run without waiting for it: wait until the model was asked twice more.
      api!.sendMessage({ customType: "acme", content: "check again", display: false }, { triggerTurn: true });
      await vi.waitFor(() => expect(pi.contexts).toHaveLength(4), { timeout: 10_000 });
      await pi.session.agent.waitForIdle();
      // pi before 0.87 tells extensions nothing between such a run and a retry: it keeps the counts.
      expect(ran()).toHaveLength(isEarendilPi ? 6 : 3);
    } finally {
      await pi.dispose();
    }
  }, 90_000);
});

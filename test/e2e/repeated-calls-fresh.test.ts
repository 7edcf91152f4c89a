/**
 * Repeated calls answered from memory must never be stale, in the real `pi` CLI (print mode) with
 * the `mcp` preset and the real server-filesystem over stdio: its `read_text_file` is read-only, so
 * `fs_read_text_file` repeats are answered from the first result. pi runs one batch's calls in
 * parallel: a read that overlapped a `bash` rewriting the file must not be remembered, and a change
 * that ends after a read must not leave that read's answer in memory.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { repoRoot, runPiCli, runPiRpc, type PiCliRun, type ScriptStep } from "../helpers/pi-cli.ts";

const require = createRequire(import.meta.url);
/** pi's RPC `bash` command reports the user's shell command to extensions (`user_bash`) on pi 1.x; pi 0.73 does not. */
const rpcReportsUserShell = readFileSync(join(piHost.codingAgentDir, "dist/modes/rpc/rpc-mode.js"), "utf8").includes("user_bash");
const FS_SERVER = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");

let work: string;
let project: string;
let agentDir: string;
let file: string;
beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "pigov-fresh-")));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(project, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  file = join(project, "f.txt");
  writeFileSync(file, "OLD\n");
  writeFileSync(
    join(agentDir, "pi-governor.json"),
    JSON.stringify({
      preset: "mcp",
      mcp: { servers: { fs: { command: process.execPath, args: [FS_SERVER, project], connectTimeoutMs: 20_000 } } },
      policies: { repeatedCalls: { enabled: true } },
    }),
  );
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const read = () => ({ name: "fs_read_text_file", arguments: { path: file } });
const bash = (command: string) => ({ name: "bash", arguments: { command } });

/** The text of every fs_read_text_file result the model was sent on its last call, in order. */
function readResults(run: PiCliRun): string[] {
  const last = run.calls.at(-1)!;
  return last.messages.filter((m) => m.role === "toolResult" && m.toolName === "fs_read_text_file").map((m) => JSON.stringify(m.content));
}

/** {@link readResults} of a run whose model requests were logged to `log` (RPC mode). */
function readResultsLogged(log: string): string[] {
  const calls = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  return readResults({ code: 0, stdout: "", stderr: "", calls });
}

/** The text of the results of `tool` the model was sent on its last call, in order. */
function resultsOf(run: PiCliRun, tool: string): string[] {
  return run.calls
    .at(-1)!
    .messages.filter((m) => m.role === "toolResult" && m.toolName === tool)
    .map((m) => JSON.stringify(m.content));
}

async function run(script: ScriptStep[]): Promise<PiCliRun> {
  const result = await runPiCli({
    extensions: [repoRoot],
    script,
    prompt: "read f.txt",
    cwd: project,
    env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined },
    timeoutMs: 90_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe(`repeated calls stay fresh under pi's parallel batches (pi ${piHost.version})`, () => {
  it("a read that ran beside a bash rewriting the file is not remembered: the next read runs and sees NEW", async () => {
    // The bash waits, so the read surely finishes first, with OLD, while the bash is still running.
    const r = await run([{ toolCalls: [read(), bash("sleep 1; echo NEW > f.txt")] }, { toolCall: read() }, { text: "done" }]);
    expect(readFileSync(file, "utf8")).toBe("NEW\n");
    const [first, second] = readResults(r);
    expect(first).toContain("OLD");
    expect(second).not.toContain("answered from that result");
    expect(second).toContain("NEW");
  }, 120_000);

  it("a read admitted after a change in the same batch is not remembered, whichever finished first", async () => {
    // The bash is first in the batch, so the read's turn at the gate comes after the change started.
    const r = await run([{ toolCalls: [bash("echo NEW > f.txt; sleep 1"), read()] }, { toolCall: read() }, { text: "done" }]);
    const results = readResults(r);
    expect(results).toHaveLength(2);
    expect(results[1]).toContain("NEW");
    expect(results[1]).not.toContain("answered from that result");
  }, 120_000);

  it("a background job a bash started (it outlasts the bash) leaves nothing remembered for the rest of the run", async () => {
    // The bash ends at once; its job rewrites the file a second later, while the model thinks.
    const r = await run([
      { toolCall: bash("(sleep 1; echo NEW > f.txt) > /dev/null 2>&1 &") },
      { toolCall: read() },
      { toolCall: read(), delayMs: 2_000 },
      { text: "done" },
    ]);
    const [first, second] = readResults(r);
    expect(first).toContain("OLD");
    expect(second).not.toContain("answered from that result");
    expect(second).toContain("NEW");
  }, 120_000);

  it("after an edit (done when it ends) a repeat is answered from memory again", async () => {
    const r = await run([
      { toolCall: { name: "edit", arguments: { path: "f.txt", edits: [{ oldText: "OLD", newText: "EDITED" }] } } },
      { toolCall: read() },
      { toolCall: read() },
      { text: "done" },
    ]);
    const [first, second] = readResults(r);
    expect(first).toContain("EDITED");
    expect(second).toContain("answered from that result");
  }, 120_000);

  it("a repeat with nothing that may change files in between is still answered from the first result", async () => {
    const r = await run([{ toolCall: read() }, { toolCall: read() }, { text: "done" }]);
    const [first, second] = readResults(r);
    expect(first).toContain("OLD");
    expect(second).toContain("answered from that result");
  }, 120_000);

  it("context_search is never answered from memory: every call adds to the index it reads, read-only ones too", async () => {
    writeFileSync(join(project, "zebra.txt"), "the zebra-striped-needle is here\n");
    const search = { name: "context_search", arguments: { query: "zebra-striped-needle" } };
    const r = await run([{ toolCall: search }, { toolCall: { name: "read", arguments: { path: "zebra.txt" } } }, { toolCall: search }, { text: "done" }]);
    const [, second] = resultsOf(r, "context_search");
    expect(second).not.toContain("answered from that result");
    expect(second).toContain("zebra-striped-needle");
  }, 120_000);

  it.skipIf(!piHasBuiltinMcp)(
    "a codemode script's read beside its own bash is not remembered (the script runs as one change)",
    async () => {
      writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+codemode"] }));
      const code = `await Promise.all([tools.fs_read_text_file({ path: ${JSON.stringify(file)} }), tools.bash({ command: "sleep 1; echo NEW > f.txt" })]);\nreturn "ok";`;
      const r = await run([{ toolCall: { name: "codemode", arguments: { code } } }, { toolCall: read() }, { text: "done" }]);
      expect(JSON.stringify(resultsOf(r, "codemode"))).toContain("Script completed");
      const [top] = readResults(r);
      expect(top).not.toContain("answered from that result");
      expect(top).toContain("NEW");
    },
    120_000,
  );

  it.skipIf(!rpcReportsUserShell)(
    "RPC: a shell command the user runs in the middle of a run (RPC bash) clears the memory",
    async () => {
      const log = join(work, "rpc-calls.jsonl");
      let sent = false;
      const r = await runPiRpc({
        extensions: [repoRoot],
        // The model takes 2 s before its second read: the user's command runs meanwhile.
        script: [{ toolCall: read() }, { toolCall: read(), delayMs: 2_000 }, { text: "done" }],
        prompt: "read f.txt twice",
        cwd: project,
        env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined, PI_GOVERNOR_SCRIPT_LOG: log },
        timeoutMs: 90_000,
        onLine: (line, send) => {
          if (sent || line.type !== "tool_execution_end" || line.toolName !== "fs_read_text_file") return;
          sent = true;
          send({ id: "user-shell", type: "bash", command: "echo NEW > f.txt" });
        },
      });
      expect(r.lines.find((l) => l.type === "response" && l.id === "user-shell")?.success, r.stderr).toBe(true);
      const results = readResultsLogged(log);
      expect(results).toHaveLength(2);
      expect(results[1]).not.toContain("answered from that result");
      expect(results[1]).toContain("NEW");
    },
    120_000,
  );

  for (const handled of ["operations", "result"]) {
    it(`RPC: once a command another extension ran (${handled}) is recorded, nothing is remembered: a later command during a run cannot leave a stale answer`, async () => {
      const log = join(work, "rpc-calls.jsonl");
      let sent = false;
      let runs = 0;
      const r = await runPiRpc({
        // Loaded before pi-governor: its user_bash handler takes every command, pi-governor's never runs.
        extensions: [join(repoRoot, "test/fixtures/user-bash-handler.ts"), repoRoot],
        // Run 1 answers at once; run 2 reads, waits 2 s (the user's command runs meanwhile), reads again.
        script: [{ text: "hello" }, { toolCall: read() }, { toolCall: read(), delayMs: 2_000 }, { text: "done" }],
        prompt: "hello",
        cwd: project,
        env: {
          PI_CODING_AGENT_DIR: agentDir,
          PI_GOVERNOR_PRESET: undefined,
          PI_GOVERNOR_CONFIG: undefined,
          PI_GOVERNOR_SCRIPT_LOG: log,
          PI_GOVERNOR_USER_BASH: handled,
        },
        timeoutMs: 90_000,
        // Between the runs the user runs a command (recorded at once: pi is idle); then the second prompt.
        then: [
          { type: "bash", command: "true" },
          { type: "prompt", message: "read f.txt twice" },
        ],
        closeWhen: (line) => line.type === "agent_end" && ++runs === 1,
        onLine: (line, send) => {
          if (sent || line.type !== "tool_execution_end" || line.toolName !== "fs_read_text_file") return;
          sent = true;
          send({ id: "user-shell", type: "bash", command: "echo NEW > f.txt" });
        },
      });
      expect(r.lines.find((l) => l.type === "response" && l.id === "user-shell")?.success, r.stderr).toBe(true);
      expect(readFileSync(file, "utf8")).toBe("NEW\n");
      const results = readResultsLogged(log);
      expect(results).toHaveLength(2);
      expect(results[1]).not.toContain("answered from that result");
      expect(results[1]).toContain("NEW");
    }, 120_000);
  }
});

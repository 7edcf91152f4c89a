/**
 * A message from the user inside a run clears the repeated-call memory: the user may have changed
 * anything before writing it (edited the file in their editor, then "I just edited it; read it
 * again"). The real `pi` CLI in RPC mode with the `mcp` preset and the real server-filesystem over
 * stdio (its `read_text_file` is read-only, so repeats are answered from memory): the user rewrites
 * the file outside any tool call and sends `steer` (pi 1.6 and 0.73) or `follow_up`; the next read
 * runs and sees the new text.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiRpc, type ScriptStep } from "../helpers/pi-cli.ts";
import { piHost } from "../helpers/pi-host.ts";

const require = createRequire(import.meta.url);
const FS_SERVER = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");

let work: string;
let project: string;
let agentDir: string;
let file: string;
beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "pigov-usermsg-")));
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

/** Runs `script` in RPC mode; once the first read ended, the user rewrites the file and sends `command`. Returns the reads' results the model saw last. */
async function userWritesMidRun(script: ScriptStep[], command: "steer" | "follow_up"): Promise<string[]> {
  const log = join(work, "rpc-calls.jsonl");
  let sent = false;
  const r = await runPiRpc({
    extensions: [repoRoot],
    script,
    prompt: "read f.txt",
    cwd: project,
    env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined, PI_GOVERNOR_SCRIPT_LOG: log },
    timeoutMs: 90_000,
    onLine: (line, send) => {
      if (sent || line.type !== "tool_execution_end" || line.toolName !== "fs_read_text_file") return;
      sent = true;
      writeFileSync(file, "NEW\n");
      send({ id: "user-message", type: command, message: "I just edited f.txt; read it again" });
    },
  });
  expect(r.lines.find((l) => l.type === "response" && l.id === "user-message")?.success, r.stderr).toBe(true);
  const calls = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { messages: Array<{ role: string; toolName?: string; content: unknown }> });
  const last = calls.at(-1)!;
  // The user's message reached the model before the second read.
  expect(JSON.stringify(last.messages.filter((m) => m.role === "user"))).toContain("I just edited f.txt");
  return last.messages.filter((m) => m.role === "toolResult" && m.toolName === "fs_read_text_file").map((m) => JSON.stringify(m.content));
}

describe(`a user's message inside a run clears the repeated-call memory (pi ${piHost.version}, RPC)`, () => {
  it("steer: the read after it runs again and sees what the user wrote", async () => {
    // The model takes 2 s before its second read: the user's edit and steer come meanwhile.
    const results = await userWritesMidRun([{ toolCall: read() }, { toolCall: read(), delayMs: 2_000 }, { text: "done" }], "steer");
    expect(results).toHaveLength(2);
    expect(results[0]).toContain("OLD");
    expect(results[1]).not.toContain("answered from that result");
    expect(results[1]).toContain("NEW");
  }, 120_000);

  it("follow_up: the read in the turn it starts runs again and sees what the user wrote", async () => {
    const results = await userWritesMidRun([{ toolCall: read() }, { text: "read it", delayMs: 2_000 }, { toolCall: read() }, { text: "done" }], "follow_up");
    expect(results).toHaveLength(2);
    expect(results[1]).not.toContain("answered from that result");
    expect(results[1]).toContain("NEW");
  }, 120_000);
});

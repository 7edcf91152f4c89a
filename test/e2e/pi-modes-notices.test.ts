/**
 * What a user must learn reaches them in every pi mode: the real `pi` CLI in print mode (`-p`,
 * stderr) and in RPC mode (`--mode rpc`, `extension_ui_request` lines on stdout), with this
 * package as the extension, a broken global config, a project config with an unknown key and a
 * wrong type, and an MCP server that cannot start (a stage that runs degraded). Each problem is
 * shown once, naming its file and key.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { repoRoot, runPiCli, runPiRpc, type RpcLine } from "../helpers/pi-cli.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-modes-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(join(project, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "pi-governor.json"), '{ "prune": { "enabled": true, }');
  writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify({ prune: { notAKey: 1 }, blobs: { maxBytes: "big" } }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** The user's environment: their agent dir, and the mcp preset with a server whose program is missing. */
const env = () => ({
  PI_CODING_AGENT_DIR: agentDir,
  PI_GOVERNOR_PRESET: undefined,
  PI_GOVERNOR_CONFIG: JSON.stringify({ preset: "mcp", mcp: { servers: { ghost: { command: join(work, "no-such-server") } } } }),
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Every problem, with its file and key, exactly once in `text`. */
function expectEachProblemOnce(text: string): void {
  expect(count(text, `${join(agentDir, "pi-governor.json")}: (file): not valid JSON`)).toBe(1);
  expect(count(text, `${join(project, ".pi", "pi-governor.json")}: prune.notAKey`)).toBe(1);
  expect(count(text, `${join(project, ".pi", "pi-governor.json")}: blobs.maxBytes`)).toBe(1);
  expect(count(text, 'MCP server "ghost"')).toBe(1);
  expect(text).not.toMatch(/pi-governor( \w+)?: pi-governor/);
}

describe("config problems and degraded stages reach the user in every pi mode", () => {
  it("print mode (pi -p): on stderr, once each, with file and key", async (ctx) => {
    skipWithoutSqlite(ctx);
    const run = await runPiCli({ extensions: [repoRoot], script: [{ text: "all good" }], prompt: "hello", cwd: project, env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/all good/);
    expectEachProblemOnce(run.stderr);
    expect(count(run.stderr, "pi-governor warning: ")).toBe(1);
  }, 90_000);

  it("RPC mode (pi --mode rpc): as notify requests to the client, once each, with file and key, and a status entry", async (ctx) => {
    skipWithoutSqlite(ctx);
    const run = await runPiRpc({ extensions: [repoRoot], script: [{ text: "all good" }], prompt: "hello", cwd: project, env: env() });
    expect(run.lines.some((l) => l.type === "response" && l.command === "prompt" && l.success === true)).toBe(true);
    expect(run.lines.some((l) => l.type === "agent_end")).toBe(true);
    const ui = (method: string) =>
      run.lines.filter(
        (l): l is RpcLine & { message?: string; statusKey?: string; statusText?: string } => l.type === "extension_ui_request" && l.method === method,
      );
    const notices = ui("notify").filter((l) => String(l.message).includes("pi-governor"));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.notifyType).toBe("warning");
    expectEachProblemOnce(notices.map((n) => n.message).join("\n"));
    expect(ui("setStatus").find((s) => s.statusKey === "governor")?.statusText).toMatch(
      /3 config problem\(s\), \d+ warning\(s\) at load \(\/governor status\)/,
    );
    // Nothing of it on stderr: the client is the user here.
    expect(run.stderr).not.toMatch(/pi-governor/);
  }, 90_000);

  it("RPC mode: a new session (new_session) is told again, once", async () => {
    const run = await runPiRpc({
      extensions: [repoRoot],
      script: [{ text: "all good" }],
      prompt: "hello",
      cwd: project,
      env: env(),
      then: [{ type: "new_session" }],
    });
    const newSession = run.lines.findIndex((l) => l.type === "response" && l.command === "new_session");
    expect(run.lines[newSession]).toMatchObject({ success: true, data: { cancelled: false } });
    const notices = run.lines
      .map((l, i) => ({ l, i }))
      .filter(({ l }) => l.type === "extension_ui_request" && l.method === "notify" && String(l.message).includes("prune.notAKey"));
    // One at startup (before the prompt ran), one for the new session (pi answers new_session after
    // the new session started).
    const agentEnd = run.lines.findIndex((l) => l.type === "agent_end");
    expect(notices.map(({ i }) => (i < agentEnd ? "first session" : i < newSession ? "new session" : "late"))).toEqual(["first session", "new session"]);
  }, 90_000);
});

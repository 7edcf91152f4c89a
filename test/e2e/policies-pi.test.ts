/**
 * The policies plugin in the real pi, with this package as the extension (the lean preset: no Bun
 * needed) and the user's global file in a throwaway agent dir: limits stop a runaway batch of calls,
 * `ask` uses pi's confirm dialog in RPC mode and in a UI, and refuses with the allowing line in
 * print mode; a project file cannot loosen the user's rules but can deny more.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiCli, runPiRpc, type PiCliRun } from "../helpers/pi-cli.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-policies-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(join(project, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  for (const f of ["a", "b", "c", "d"]) writeFileSync(join(project, `${f}.txt`), `file ${f}\n`);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const globalConfig = (policies: Record<string, unknown>) => writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies }));
const env = () => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined });

/** Every tool result the model was sent on its last call, by tool name, as text. */
function lastResults(run: Pick<PiCliRun, "calls">): Array<{ toolName?: string; text: string; isError?: boolean }> {
  const last = run.calls.at(-1)!;
  return last.messages
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ toolName: m.toolName, text: JSON.stringify(m.content), isError: (m as { isError?: boolean }).isError }));
}

const touch = (name: string) => ({ toolCall: { name: "bash", arguments: { command: `touch ${name}` } } });

describe("policies in the real pi", () => {
  it("print mode: a perTurn limit with onExceed stop refuses the calls over it and ends the run", async () => {
    globalConfig({ limits: [{ tools: "bash", perTurn: 2, onExceed: "stop" }] });
    const touches = ["a", "b", "c", "d"].map((f) => touch(`new-${f}.txt`).toolCall);
    // Batch 1: four commands, two over the limit. If the model is asked again, one more command.
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCalls: touches }, touch("new-e.txt"), { text: "all done" }],
      prompt: "go",
      cwd: project,
      env: env(),
    });
    for (const f of ["c", "d", "e"]) expect(existsSync(join(project, `new-${f}.txt`))).toBe(false);
    // pi 0.84.1+ ends the run after a batch whose calls were all stopped (here the model's second
    // request, which saw the stop); older pi is aborted at the first stopped call.
    expect(run.calls.length).toBeLessThanOrEqual(2);
    expect(run.stdout).not.toContain("all done");
    if (run.calls.length === 2) {
      const results = lastResults(run).map((r) => r.text);
      expect(results.filter((t) => t.includes("Stopped: this turn reached its limit of 2 calls of bash (policies.limits[0]: perTurn 2)"))).toHaveLength(2);
    }
  }, 90_000);

  it("print mode: ask refuses (no one can answer) and names the line that allows it; the command never ran", async () => {
    globalConfig({ rules: [{ tools: "bash", action: "ask" }] });
    const run = await runPiCli({ extensions: [repoRoot], script: [touch("asked.txt"), { text: "ok" }], prompt: "touch it", cwd: project, env: env() });
    expect(run.code).toBe(0);
    const [result] = lastResults(run);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain("no one can answer in this mode");
    expect(result!.text).toContain(JSON.stringify(JSON.stringify({ tools: "bash", action: "allow" })).slice(1, -1));
    expect(result!.text).toContain(join(agentDir, "pi-governor.json"));
    expect(existsSync(join(project, "asked.txt"))).toBe(false);
  }, 90_000);

  it("print mode: a project file cannot loosen the user's rules or limits, but may deny more tools", async () => {
    globalConfig({ rules: [{ tools: "bash", action: "deny" }] });
    writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify({ policies: { rules: [], enabled: false, deny: ["read"] } }));
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [touch("denied.txt"), { toolCall: { name: "read", arguments: { path: "a.txt" } } }, { text: "ok" }],
      prompt: "go",
      cwd: project,
      env: env(),
    });
    const results = lastResults(run);
    expect(results[0]!.text).toContain("Refused by the user's policy (policies.rules[0]");
    expect(results[1]!.text).toContain("Refused by the user's policy (policies.deny)");
    expect(existsSync(join(project, "denied.txt"))).toBe(false);
    expect(run.stderr).toContain("policies.rules");
    expect(run.stderr).toMatch(/ignored: a project config may not/);
  }, 90_000);

  for (const confirmed of [true, false]) {
    it(`RPC mode: ask shows pi's confirm dialog to the client; ${confirmed ? "yes runs the call" : "no refuses it"}`, async () => {
      globalConfig({ rules: [{ tools: "bash", action: "ask" }] });
      const log = join(work, "rpc-calls.jsonl");
      const run = await runPiRpc({
        extensions: [repoRoot],
        script: [touch("rpc.txt"), { text: "ok" }],
        prompt: "touch it",
        cwd: project,
        env: { ...env(), PI_GOVERNOR_SCRIPT_LOG: log },
        confirmAnswer: confirmed,
      });
      const dialogs = run.lines.filter((l) => l.type === "extension_ui_request" && l.method === "confirm");
      expect(dialogs).toHaveLength(1);
      expect(String(dialogs[0]!.message)).toContain("touch rpc.txt");
      expect(existsSync(join(project, "rpc.txt"))).toBe(confirmed);
      const calls = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const [result] = lastResults({ calls });
      if (!confirmed) expect(result!.text).toContain("The user declined this bash call");
      else expect(result!.isError).toBeFalsy();
    }, 90_000);
  }
});

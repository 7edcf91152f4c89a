/**
 * `onExceed: "stop"` ends the run in the real pi, whatever else the model's batches hold: a call to a
 * tool that does not exist or with arguments pi rejects (pi refuses those itself, before any
 * extension sees them, so their results never say `terminate`), or a call the user's rules deny.
 * Once stopped, every later call of the run is refused as stopped, without an ask dialog. The model
 * repeats its last step forever, so only the stop can end these runs; each must end within a few
 * requests. Print and RPC mode, the lean preset.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiCli, runPiRpc, type ScriptCall, type ScriptStep } from "../helpers/pi-cli.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-stop-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(project, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(project, "a.txt"), "file a\n");
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined });
const policies = (extra: Record<string, unknown> = {}) =>
  writeFileSync(
    join(agentDir, "pi-governor.json"),
    JSON.stringify({ preset: "lean", policies: { limits: [{ tools: "*", perRun: 1, onExceed: "stop" }], ...extra } }),
  );
const touch = (name: string): ScriptCall => ({ name: "bash", arguments: { command: `touch ${name}` } });
const read: ScriptCall = { name: "read", arguments: { path: "a.txt" } };
/** The first batch reaches the stop (one call runs, the second is stopped); the second batch repeats forever. */
const script = (first: ScriptCall[], repeated: ScriptCall[]): ScriptStep[] => [{ toolCalls: first }, { toolCalls: repeated }];
const touched = () => readdirSync(project).filter((f) => /^(a\d|x)$/.test(f));

/** At most this many model requests: the stopped batch, one request that sees why, one aborted before it is answered. */
const MAX_REQUESTS = 3;

describe("onExceed stop ends the run (print mode)", () => {
  const touches = [touch("a1"), touch("a2")];
  const cases: Array<[string, ScriptCall[], ScriptCall[], Record<string, unknown>?]> = [
    ["a call to a tool that does not exist", touches, [touch("x"), { name: "no_such_tool", arguments: {} }]],
    ["a call with arguments pi rejects", touches, [touch("x"), { name: "bash", arguments: { cmd: "oops" } }]],
    ["a call the user's deny list refuses, alone", touches, [{ name: "write", arguments: { path: "x", content: "x" } }], { deny: ["write"] }],
    ["a call an ask rule would ask about (refused as stopped)", [read, read], [touch("x")], { rules: [{ tools: "bash", action: "ask" }] }],
  ];
  for (const [what, first, repeated, extra] of cases) {
    it(`the next batch holds ${what}: the run ends, nothing more runs`, async () => {
      policies(extra);
      const run = await runPiCli({ extensions: [repoRoot], script: script(first, repeated), prompt: "go", cwd: project, env: env(), timeoutMs: 45_000 });
      expect(run.calls.length, `model requests; stderr: ${run.stderr.slice(0, 500)}`).toBeLessThanOrEqual(MAX_REQUESTS);
      expect(touched()).toEqual(first === touches ? ["a1"] : []);
      // The request after the stop told the model why.
      const seen = JSON.stringify(run.calls[1]?.messages ?? []);
      expect(seen).toContain("Stopped: this run reached its limit of 1 tool calls (policies.limits[0]: perRun 1)");
    }, 60_000);
  }
});

describe("onExceed stop ends the run (RPC mode)", () => {
  it("a batch with an unknown tool after the stop: the run ends, no dialog is shown", async () => {
    policies({ rules: [{ tools: "bash", action: "ask" }] });
    const run = await runPiRpc({
      extensions: [repoRoot],
      script: [
        {
          toolCalls: [
            { name: "read", arguments: { path: "a.txt" } },
            { name: "read", arguments: { path: "a.txt" } },
          ],
        },
        { toolCalls: [touch("x"), { name: "no_such_tool", arguments: {} }] },
      ],
      prompt: "go",
      cwd: project,
      env: env(),
      confirmAnswer: true,
      timeoutMs: 45_000,
    });
    const turns = run.lines.filter((l) => l.type === "turn_start").length;
    expect(turns, run.stderr.slice(0, 500)).toBeLessThanOrEqual(MAX_REQUESTS);
    expect(run.lines.some((l) => l.type === "agent_end")).toBe(true);
    expect(run.lines.filter((l) => l.type === "extension_ui_request" && l.method === "confirm")).toEqual([]);
    expect(existsSync(join(project, "x"))).toBe(false);
  }, 60_000);
});

/**
 * What the user approves under an `ask` rule is what runs, in the real pi's RPC mode, against
 * another extension that changes the call's arguments (`event.input`, which pi lets any `tool_call`
 * handler change without checking it again): after the user said yes (an extension loaded after
 * pi-governor), or while the dialog was open (an extension loaded before it that kept the
 * arguments). The changed call never runs; the approved one runs or the call is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiRpc } from "../helpers/pi-cli.ts";

const mutator = join(repoRoot, "test/fixtures/args-mutator.ts");

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-approved-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(project, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(project, "f.txt"), "old text\n");
  const rules = [
    { tools: "bash", action: "ask" },
    { tools: "edit", action: "ask" },
  ];
  writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies: { rules } }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = (mode: string) => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined, PI_GOVERNOR_MUTATE: mode });

async function approveAll(extensions: string[], mode: string, confirmDelayMs: number) {
  return runPiRpc({
    extensions,
    script: [
      {
        toolCalls: [
          { name: "bash", arguments: { command: "echo approved > out.txt" } },
          { name: "edit", arguments: { path: "f.txt", edits: [{ oldText: "old text", newText: "approved text" }] } },
        ],
      },
      { text: "done" },
    ],
    prompt: "go",
    cwd: project,
    env: env(mode),
    // The client says yes to every dialog, after `confirmDelayMs`.
    onLine: (line, send) => {
      if (line.type === "extension_ui_request" && line.method === "confirm")
        setTimeout(() => send({ type: "extension_ui_response", id: line.id, confirmed: true }), confirmDelayMs);
    },
  });
}

function expectOnlyApproved(run: Awaited<ReturnType<typeof approveAll>>): void {
  expect(run.lines.filter((l) => l.type === "extension_ui_request" && l.method === "confirm")).toHaveLength(2);
  expect(existsSync(join(project, "NOT_APPROVED"))).toBe(false);
  expect(readFileSync(join(project, "f.txt"), "utf8")).not.toContain("NOT_APPROVED");
  // What ran, if anything, is what was approved.
  if (existsSync(join(project, "out.txt"))) expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("approved\n");
}

describe("the approved call is the call that runs (RPC mode)", () => {
  it("an extension loaded after pi-governor changes the arguments after the user said yes", async () => {
    const run = await approveAll([repoRoot, mutator], "handler", 0);
    expectOnlyApproved(run);
  }, 90_000);

  it("an extension loaded before pi-governor changes the arguments while the dialog is open", async () => {
    const run = await approveAll([mutator, repoRoot], "later", 400);
    expectOnlyApproved(run);
    const results = run.lines.filter((l) => l.type === "tool_execution_end").map((l) => JSON.stringify(l.result));
    expect(results.join("\n")).toMatch(/changed after .*shown/);
  }, 90_000);
});

/**
 * The package the way a user runs it: the real `pi` CLI in print mode loading this repository as a pi
 * package (`pi -e <path>`, and `pi install <path>` into a throwaway agent dir), with the default
 * preset, on a PATH without Bun. The scripted provider plays the model.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFixtureRepo, FIXTURE_FILES, type FixtureRepo } from "../fixtures/kota-repo.ts";
import { bigSource } from "../helpers/kota-e2e.ts";
import { piCli, repoRoot, runPiCli, type PiCliRun } from "../helpers/pi-cli.ts";
import { standinKotaConfig } from "../helpers/kota-standin.ts";

/** PATH without any directory that holds a `bun` executable: a machine without Bun. */
function pathWithoutBun(): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => {
      try {
        accessSync(join(dir, "bun"), constants.X_OK);
        return false;
      } catch {
        return true;
      }
    })
    .join(delimiter);
}

/** The tool results the model was sent on its last call. */
function lastToolResults(run: PiCliRun): Array<{ toolName?: string; text: string }> {
  const messages = run.calls.at(-1)?.messages ?? [];
  return messages.filter((m) => m.role === "toolResult").map((m) => ({ toolName: m.toolName, text: JSON.stringify(m.content) }));
}

let repo: FixtureRepo;
let home: string;
beforeEach(() => {
  repo = createFixtureRepo({ ...FIXTURE_FILES, "src/generated/big.ts": bigSource("big", 40) });
  home = mkdtempSync(join(tmpdir(), "kota-cli-home-"));
});
afterEach(() => {
  repo.remove();
  rmSync(home, { recursive: true, force: true });
});

const script = [
  { toolCall: { name: "kota_deps", arguments: { file_path: "src/utils/math.ts" } } },
  { toolCall: { name: "read", arguments: { path: "src/generated/big.ts" } } },
  { text: "KotaDB is not available here; continuing with read/grep." },
];

function expectBunMessage(run: PiCliRun): void {
  expect(run.stderr).not.toMatch(/TypeError|ReferenceError|Unhandled|at .*\.ts:\d+/);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/KotaDB is not available here/);
  // Print mode has no UI: the user still sees the fix once, on stderr.
  expect(run.stderr.match(/pi-governor (warning|error): .*Bun/g) ?? []).toHaveLength(1);
  const deps = lastToolResults(run).find((r) => r.toolName === "kota_deps")!;
  expect(deps.text).toMatch(/KotaDB needs Bun, and `bun` is not on PATH\. Install Bun \(`npm i -g bun`, or see https:\/\/bun.sh\), then run \/kota restart/);
  // Blobs for pi's own read keep working: the 40 KB read reached the model as an excerpt with its blob id.
  const read = lastToolResults(run).find((r) => r.toolName === "read")!;
  expect(read.text).toMatch(/\[blob: 4\d,\d{3} bytes stored; blob_read/);
  expect(read.text.length).toBeLessThan(12_000);
  // The kota tools and the rest of the preset are registered.
  expect(run.calls[0]!.tools).toEqual(
    expect.arrayContaining(["kota_index", "kota_search", "kota_deps", "kota_usages", "kota_impact", "kota_task_context", "kota_status", "blob_read"]),
  );
}

describe("pi CLI with the default preset on a machine without Bun", () => {
  it("pi -p -e <package path>: the model gets the fix, the run exits 0", async () => {
    const run = await runPiCli({
      extensions: [repoRoot],
      script,
      prompt: "what depends on src/utils/math.ts?",
      cwd: repo.root,
      env: { PATH: pathWithoutBun(), HOME: home },
      timeoutMs: 90_000,
    });
    expectBunMessage(run);
  }, 120_000);

  it("pi install <package path> into a throwaway agent dir, then pi -p: same", async () => {
    const agentDir = join(home, "agent");
    const env = { ...process.env, PATH: pathWithoutBun(), HOME: home, PI_CODING_AGENT_DIR: agentDir };
    const install = spawnSync(process.execPath, [piCli, "install", repoRoot], { cwd: repo.root, env, encoding: "utf8", timeout: 60_000 });
    expect(install.status, install.stderr).toBe(0);
    const run = await runPiCli({
      extensions: [],
      script,
      prompt: "what depends on src/utils/math.ts?",
      cwd: repo.root,
      env: { PATH: pathWithoutBun(), HOME: home, PI_CODING_AGENT_DIR: agentDir },
      timeoutMs: 90_000,
    });
    expectBunMessage(run);
  }, 120_000);
});

describe("pi CLI with KotaDB (the stand-in) in print mode", () => {
  it("kota_index is not run without a UI; the model is told how to proceed", async () => {
    const config = JSON.stringify({ kota: standinKotaConfig() });
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "kota_index", arguments: {} } }, { text: "Asked the user to index." }],
      prompt: "index the repo",
      cwd: repo.root,
      env: { HOME: home, PI_GOVERNOR_CONFIG: config },
      timeoutMs: 90_000,
    });
    expect(run.code).toBe(0);
    const index = lastToolResults(run).find((r) => r.toolName === "kota_index")!;
    expect(index.text).toMatch(/no UI \(print mode\), so it was not started\. Do not retry kota_index here\. Tell the user to run `\/kota index`/);
  }, 120_000);
});

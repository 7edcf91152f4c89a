/**
 * A repository's `.pi/pi-governor.json` against what the user's global file decides, in the real pi
 * (print mode): a project's redaction shapes only ever hide more (never a piece of a server's
 * credential the user's env-value rule hides), a project cannot switch the preset, which decides
 * which programs run and whose credentials are known to redaction, and it cannot drop the user's
 * "ask before indexing".
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callLogIn, standinCalls, standinKotaConfig } from "../helpers/kota-standin.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

// Built at run time: no whole credential in the repository's source.
const CREDENTIAL = ["Zq8v", "K2mP9x", "L4nR7tW1yB"].join("");

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-project-trust-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(join(project, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(project, "notes.txt"), `cred: "${CREDENTIAL}"\n`);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined, ...extra });
const globalFile = (config: Record<string, unknown>) => writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify(config));
const projectFile = (config: Record<string, unknown>) => writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify(config));

/** The user's managed server, with its credential in `env` (declared tools: it never needs to start here). */
const withServerCredential = {
  preset: "mcp",
  mcp: {
    servers: {
      mem: {
        command: join(repoRoot, "node_modules/.bin/mcp-server-memory"),
        env: { ACME_CRED: CREDENTIAL },
        tools: [{ name: "read_graph", readOnly: true, inputSchema: { type: "object", properties: {} } }],
      },
    },
  },
};

/** What the model was shown of `cat notes.txt`. */
async function catNotes(): Promise<{ seen: string; stderr: string; tools: string[] }> {
  const run = await runPiCli({
    extensions: [repoRoot],
    script: [{ toolCall: { name: "bash", arguments: { command: "cat notes.txt" } } }, { text: "done" }],
    prompt: "read the notes",
    cwd: project,
    env: env(),
  });
  expect(run.code, run.stderr).toBe(0);
  const result = run.calls.at(-1)!.messages.find((m) => m.role === "toolResult");
  return { seen: JSON.stringify(result?.content), stderr: run.stderr, tools: run.calls[0]!.tools };
}

describe("a project's redaction shapes only hide more (print mode)", () => {
  it("a shape that starts just before the server's credential leaves it hidden whole", async () => {
    globalFile(withServerCredential);
    projectFile({ redact: { projectPatterns: [{ name: "p", prefix: '"Z', chars: "A-Za-z", minLength: 1, maxLength: 64 }] } });
    const { seen } = await catNotes();
    expect(seen).not.toContain(CREDENTIAL.slice(2));
    expect(seen).not.toContain(CREDENTIAL.slice(-8));
    expect(seen).toContain("redacted:");
  }, 90_000);

  it("62 blind shapes (one per first character) leave it hidden whole too", async () => {
    globalFile(withServerCredential);
    const firsts = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"];
    projectFile({
      redact: { projectPatterns: firsts.map((c, i) => ({ name: `p${i}`, prefix: `"${c}`, chars: "A-Za-z", minLength: 1, maxLength: 64 })) },
    });
    const { seen } = await catNotes();
    expect(seen).not.toContain(CREDENTIAL.slice(2));
    expect(seen).not.toContain(CREDENTIAL.slice(-8));
  }, 90_000);
});

describe("a project cannot switch the preset (print mode)", () => {
  it("the user's mcp preset stays: a project's lean would drop the server's credential from redaction", async () => {
    globalFile(withServerCredential);
    projectFile({ preset: "lean" });
    const { seen, stderr } = await catNotes();
    expect(seen).toContain("[redacted:env-value]");
    expect(seen).not.toContain(CREDENTIAL);
    expect(stderr).toMatch(/preset/);
  }, 90_000);

  it("the user's lean preset stays: a project's kota would start a program the user did not choose", async () => {
    globalFile({ preset: "lean" });
    projectFile({ preset: "kota" });
    // A `bun` on PATH that records being run: the kota preset would start KotaDB with it.
    const bin = join(work, "bin");
    mkdirSync(bin);
    const marker = join(work, "bun-ran");
    writeFileSync(join(bin, "bun"), `#!/bin/sh\ntouch ${marker}\nsleep 5\n`);
    chmodSync(join(bin, "bun"), 0o755);
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "kota_search", arguments: { query: "x" } } }, { text: "done" }],
      prompt: "search",
      cwd: project,
      env: env({ PATH: `${bin}:${process.env.PATH}` }),
    });
    expect(run.calls[0]!.tools.filter((t) => t.startsWith("kota_"))).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(run.stderr).toMatch(/preset/);
  }, 90_000);

  it("without a preset in the global file (the default kota), a project's preset is ignored too", async () => {
    globalFile({ policies: { deny: ["write"] } });
    projectFile({ preset: "lean" });
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ text: "done" }],
      prompt: "hello",
      cwd: project,
      env: env(),
    });
    // The default preset (kota) runs: its tools are offered, and the project's choice is reported.
    expect(run.calls[0]!.tools.some((t) => t.startsWith("kota_"))).toBe(true);
    expect(run.stderr).toMatch(/preset/);
  }, 90_000);
});

describe("a project cannot drop the user's ask before indexing (print mode)", () => {
  it("kota.confirmIndex false and indexWithoutUi allow from a project are ignored: kota_index is not run", async () => {
    const log = callLogIn(work);
    globalFile({ kota: standinKotaConfig({ KOTADB_STANDIN_LOG: log }) });
    projectFile({ kota: { confirmIndex: false, indexWithoutUi: "allow" } });
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "kota_index", arguments: {} } }, { text: "done" }],
      prompt: "index the repo",
      cwd: project,
      env: env(),
      timeoutMs: 90_000,
    });
    const index = run.calls.at(-1)!.messages.find((m) => m.role === "toolResult" && m.toolName === "kota_index");
    expect(JSON.stringify(index?.content)).toMatch(/no UI \(print mode\), so it was not started/);
    expect(standinCalls(log).filter((c) => c.name === "index_repository")).toEqual([]);
    expect(run.stderr).toMatch(/kota\.confirmIndex: ignored/);
    expect(run.stderr).toMatch(/kota\.indexWithoutUi: ignored/);
  }, 120_000);
});

/**
 * A cloned repository attacks through its `.pi/pi-governor.json`, through what its files make a tool
 * print, and the attack must fail in the real pi (print mode) and in the `pi-governor` CLI (bin):
 * - a config file linked to `/dev/zero` (pi once read it until it ran out of memory) or a FIFO is
 *   refused unread, and pi, `doctor` and `replay` start and say so;
 * - an escape sequence in a config key (OSC 52 writes the user's clipboard) or in a tool output
 *   reaches no terminal: pi's startup notice, `doctor` and `search` show it as `\u001b`.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeSqlite } from "../../lib/sqlite/index.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

/** An OSC 52 sequence: "set the clipboard to 'hello'" (base64), as a terminal would act on it. */
const OSC52 = "\u001b]52;c;aGVsbG8=\u0007";
/** Any raw control character a terminal acts on (tab and newline aside). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let work: string;
let project: string;
let agentDir: string;
let home: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-hostile-"));
  project = join(work, "repo");
  agentDir = join(work, "agent");
  home = join(work, "home");
  for (const d of [join(project, ".pi"), agentDir, home]) mkdirSync(d, { recursive: true });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const projectFile = () => join(project, ".pi", "pi-governor.json");
const env = () => ({ HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean", PI_GOVERNOR_CONFIG: undefined });

/** Runs `bin/pi-governor.mjs` the way a user does; kills it after `timeoutMs`. */
function governorCli(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), ...args], {
      cwd: project,
      env: { ...process.env, ...env() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("a project config file that is not a plain file", () => {
  for (const [what, plant] of [
    ["a link to /dev/zero", () => symlinkSync("/dev/zero", projectFile())],
    ["a FIFO", () => execFileSync("mkfifo", [projectFile()])],
  ] as const) {
    it(`${what}: pi starts and answers, doctor and replay run, each names the refused file`, async () => {
      plant();
      const run = await runPiCli({ extensions: [repoRoot], script: [{ text: "still here" }], prompt: "hello", cwd: project, env: env(), timeoutMs: 60_000 });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/still here/);
      expect(run.stderr).toContain(`${projectFile()}: (file): refused: it is`);

      const doctor = await governorCli(["doctor", "--cwd", project]);
      expect(doctor.stdout).toContain(`FAIL  config: ${projectFile()}: (file): refused: it is`);
      expect(doctor.stdout).toContain(`project ${projectFile()} not used (see below)`);

      const replay = await governorCli(["replay", join(repoRoot, "cli/replay/sample/session.jsonl"), "--no-chart", "--no-turns"]);
      expect(`${replay.stdout}${replay.stderr}`).toContain(`${projectFile()}: (file): refused: it is`);
    }, 180_000);
  }
});

describe("glob patterns from a project file", () => {
  it("100 patterns of 200 characters are refused with the bound, and pi answers a request with a 20,000-character path", async () => {
    const globs = Array.from({ length: 100 }, () => `src/${"*a".repeat(97)}*b`.slice(0, 200));
    writeFileSync(projectFile(), JSON.stringify({ prune: { protectedFilePatterns: globs } }));
    const script = [{ toolCall: { name: "read", arguments: { path: `src/${"a".repeat(20_000)}` } } }, { text: "read failed, fine" }];
    const run = await runPiCli({ extensions: [repoRoot], script, prompt: "read it", cwd: project, env: env(), timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/read failed, fine/);
    expect(run.stderr).toMatch(/prune\.protectedFilePatterns: .* is too large; use at most 64 items/);
  }, 120_000);
});

describe("escape sequences from a repository never reach the terminal", () => {
  it("a config key with OSC 52: pi's startup notice and doctor show it escaped", async () => {
    // JSON escapes: the file itself is plain ASCII, the key holds ESC ... BEL once parsed.
    writeFileSync(projectFile(), `{ "prune": { ${JSON.stringify(`${OSC52}clip`)}: 1 } }`);
    const run = await runPiCli({ extensions: [repoRoot], script: [{ text: "ok" }], prompt: "hello", cwd: project, env: env(), timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("prune.\\u001b]52;c;aGVsbG8=\\u0007clip: unknown key");
    expect(run.stderr).not.toMatch(RAW_CONTROL);

    const doctor = await governorCli(["doctor", "--cwd", project]);
    expect(doctor.stdout).toContain("prune.\\u001b]52;c;aGVsbG8=\\u0007clip: unknown key");
    expect(doctor.stdout).not.toMatch(RAW_CONTROL);
  }, 120_000);

  it.skipIf(!probeSqlite().fts5)(
    "a tool output with OSC 52: `pi-governor search` shows it escaped",
    async () => {
      const script = [{ toolCall: { name: "bash", arguments: { command: `printf 'marmalade \\033]52;c;aGVsbG8=\\007 done\\n'` } } }, { text: "ran it" }];
      const run = await runPiCli({ extensions: [repoRoot], script, prompt: "run it", cwd: project, env: env(), timeoutMs: 60_000 });
      expect(run.code).toBe(0);
      // The model saw the raw output (pi's result is the user's); only what a person is shown changes.
      expect(JSON.stringify(run.calls.at(-1)?.messages)).toContain("\\u001b]52;c;aGVsbG8=");

      const search = await governorCli(["search", "marmalade"]);
      expect(search.code).toBe(0);
      expect(search.stdout).toContain("«marmalade» \\u001b]52;c;aGVsbG8=\\u0007 done");
      expect(search.stdout).not.toMatch(RAW_CONTROL);
      const json = await governorCli(["search", "marmalade", "--json"]);
      expect(json.stdout).not.toMatch(RAW_CONTROL);
      // The reader leaves no -wal/-shm beside the index (pi removed its own at session end).
      const indexDir = join(agentDir, "cache", "pi-governor", "recall");
      expect(readdirSync(indexDir).filter((f) => /-(wal|shm)$/.test(f))).toEqual([]);
      // Still valid JSON, holding the output's real characters.
      expect((JSON.parse(json.stdout) as { hits: Array<{ snippet: string }> }).hits[0]!.snippet).toContain(`marmalade» ${OSC52} done`);
    },
    120_000,
  );
});

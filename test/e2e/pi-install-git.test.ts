/**
 * `pi install git:<url>`, as the README documents it, with the real pi CLI: pi clones the repository
 * into `<agent dir>/git/<host>/<path>`, runs `npm install --omit=dev` in the clone (dev dependencies
 * left out), adds `git:<host>/<path>` to the agent dir's settings.json, and every later `pi` loads the
 * extension from the clone.
 *
 * The repository is a local one made from this working tree (tracked and untracked, not ignored,
 * files, committed once), so no network is needed except the npm registry for the runtime
 * dependencies. pi accepts only http(s)/ssh/git URLs or `host/path`, never a file path, so git's own
 * `url.<base>.insteadOf` (set through GIT_CONFIG_* in the environment, never in a config file) maps
 * the made-up https URL to the local repository.
 *
 * One difference from a user's install, for time: npm runs with install scripts off. The only
 * install script among the runtime dependencies is the optional better-sqlite3's native build, which
 * has no prebuilt binary here (no internet besides the registry) and compiles SQLite from source:
 * measured 608 s for the whole install on this 2-core machine under load (31 s with scripts off). The
 * extension then uses node:sqlite (Node >= 22.13) or runs its SQLite stages degraded, as it does on
 * any machine where better-sqlite3 cannot be built; loading the package from the clone is what this
 * test proves.
 *
 * Skipped, with that reason in its name, when `git` is not on PATH.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { piCli, repoRoot, runPiCli } from "../helpers/pi-cli.ts";

const gitWorks = spawnSync("git", ["--version"], { encoding: "utf8" }).status === 0;
const HOST = "git.example.test";
const PATH_IN_HOST = "team/pi-governor";

let work: string;
let source: string;
let agentDir: string;

/** Runs git in `cwd`; throws with git's stderr when it fails. */
function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=pi-governor test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A git repository holding the package's files as they are in the working tree now. */
function repositoryFromWorkingTree(into: string): void {
  mkdirSync(into, { recursive: true });
  const files = git(repoRoot, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean);
  for (const file of files) {
    const from = join(repoRoot, file);
    // Regular files only: a deleted file, or a link (a worktree's node_modules may be a link to a
    // shared install, which npm in the clone must never reach), is not part of the package.
    if (file.split("/")[0] === "node_modules" || !lstatSync(from, { throwIfNoEntry: false })?.isFile()) continue;
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(from, join(into, file));
  }
  git(into, "init", "-q", "-b", "main");
  git(into, "add", "-A");
  git(into, "commit", "-q", "-m", "the working tree");
}

/** The environment of every pi run: the throwaway agent dir, and git's URL rewrite to the local repository. */
const env = () => ({
  PI_CODING_AGENT_DIR: agentDir,
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: `url.file://${source}.insteadOf`,
  GIT_CONFIG_VALUE_0: `https://${HOST}/${PATH_IN_HOST}`,
  // See the module comment: the optional native build of better-sqlite3 takes minutes here.
  npm_config_ignore_scripts: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  PI_GOVERNOR_PRESET: "lean",
  PI_GOVERNOR_CONFIG: undefined,
});

describe.skipIf(!gitWorks)(`pi install git:<url> with the real pi CLI${gitWorks ? "" : " (skipped: git is not on PATH)"}`, () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "pigov-git-install-"));
    source = join(work, "source");
    agentDir = join(work, "agent");
    repositoryFromWorkingTree(source);
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("clones into the agent dir, installs the runtime dependencies only, and a later pi -p loads the extension from the clone", async () => {
    const started = Date.now();
    const install = spawnSync(process.execPath, [piCli, "install", `git:${HOST}/${PATH_IN_HOST}`], {
      cwd: work,
      env: { ...process.env, ...env() },
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    const clone = join(agentDir, "git", HOST, PATH_IN_HOST);
    expect(existsSync(join(clone, ".git")), "a git clone").toBe(true);
    expect(lstatSync(join(clone, "node_modules")).isDirectory(), "node_modules installed in the clone").toBe(true);
    expect(git(clone, "log", "-1", "--format=%s").trim()).toBe("the working tree");
    // `npm install --omit=dev`: the runtime dependencies are there, the dev dependencies (pi itself, vitest) are not.
    for (const dependency of ["tapable", "zod", "jiti", "@modelcontextprotocol/sdk"])
      expect(existsSync(join(clone, "node_modules", dependency)), dependency).toBe(true);
    for (const dev of ["vitest", "typescript", "@earendil-works/pi-coding-agent", "node"])
      expect(existsSync(join(clone, "node_modules", dev)), dev).toBe(false);
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).packages).toEqual([`git:${HOST}/${PATH_IN_HOST}`]);
    process.stderr.write(`pi install git: took ${Math.round((Date.now() - started) / 1000)} s\n`);

    // No -e for the package: the governor can only come from the installed clone.
    const run = await runPiCli({
      extensions: [],
      script: [{ toolCall: { name: "blob_read", arguments: { id: "0000000000000000" } } }, { text: "done" }],
      prompt: "read that blob",
      env: env(),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.calls[0]!.tools).toEqual(expect.arrayContaining(["blob_read"]));
    // The clone has no better-sqlite3 (scripts off): recall's search is offered where pi's Node has node:sqlite.
    const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
    expect(run.calls[0]!.tools.includes("context_search")).toBe(major > 22 || (major === 22 && minor >= 13));
    const result = run.calls[1]!.messages.find((m) => m.role === "toolResult" && m.toolName === "blob_read");
    expect(JSON.stringify(result?.content)).toMatch(/blob/i);
    expect(run.stdout).toMatch(/done/);
  }, 330_000);
});

/**
 * `pi-governor doctor` in a shell, run as a user runs it (a child process with an empty HOME): one
 * true thing per check, and nothing written.
 *  - `pi` on PATH as a wrapper script (`exec <node 24> <pi 1.6>/dist/cli.js`): the pi and the Node it
 *    names, and SQLite judged for that Node, even when the shell's own Node has no driver.
 *  - Without SQLite where pi runs: the sqlite check fails with one fix, the Node versions in it agree,
 *    and recall's index line says it is off rather than "ok".
 *  - `--cwd` of a folder that does not exist: a wrong argument (exit 2); no check creates anything,
 *    for it or for a real folder (KotaDB's data folder included).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../../helpers/package-install.ts";
import { piHost, repoRoot } from "../../helpers/pi-host.ts";

const work = mkdtempSync(join(tmpdir(), "cli-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** pi's Node for the wrapper: the repository's Node 24 (the `node` devDependency), else this one. */
const node24 = [join(repoRoot, "node_modules/node/bin/node"), process.execPath].find(existsSync)!;

/** The shell's Node: the one npm runs on (the system's) when it is another than pi's, else this one. */
const shellNode =
  [process.env.npm_node_execpath, process.execPath].find((n): n is string => !!n && existsSync(n) && realpathSync(n) !== realpathSync(node24)) ??
  process.execPath;

/** Everything under `dir`, as relative paths. */
function tree(dir: string): string[] {
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

/** `pi-governor doctor <args>` on the shell's Node, `extraNodeArgs` before the script, in a HOME of its own. */
async function doctor(args: string[], env: Record<string, string>, extraNodeArgs: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
  const r = await run(shellNode, [...extraNodeArgs, join(repoRoot, "bin/pi-governor.mjs"), "doctor", ...args], work, {
    HOME: join(work, "home"),
    PI_CODING_AGENT_DIR: undefined,
    PI_GOVERNOR_SQLITE_DRIVER: undefined,
    PI_GOVERNOR_CONFIG: JSON.stringify({ doctor: { startTimeoutMs: 5_000 } }),
    ...env,
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("pi-governor doctor in a shell", { timeout: 60_000 }, () => {
  it("--cwd of a missing folder is a wrong argument, and the doctor writes nothing for a real one either", async () => {
    mkdirSync(join(work, "home"), { recursive: true });
    const missing = await doctor(["--cwd", join(work, "no-such-dir")], { PATH: "/usr/bin:/bin" });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^pi-governor doctor: --cwd .*no-such-dir is not a folder\./);
    expect(tree(join(work, "home"))).toEqual([]);
    const project = join(work, "project");
    mkdirSync(project, { recursive: true });
    const real = await doctor(["--cwd", project], { PATH: "/usr/bin:/bin" });
    expect(real.out).toMatch(/pi-governor doctor/);
    expect(tree(join(work, "home"))).toEqual([]);
    expect(tree(project)).toEqual([]);
  });

  it("`pi` on PATH as a wrapper script: the pi and the Node it names; SQLite judged for pi's Node, not the shell's", async () => {
    const bin = join(work, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec "${node24}" "${piHost.cliPath}" "$@"\n`);
    chmodSync(join(bin, "pi"), 0o755);
    // The shell's Node has no SQLite driver (better-sqlite3 missing, and forced where node:sqlite exists).
    const r = await doctor(["--cwd", join(work, "project")], { PATH: `${bin}:/usr/bin:/bin`, PI_GOVERNOR_SQLITE_DRIVER: "better-sqlite3" }, [
      "--require",
      join(repoRoot, "test/fixtures/sqlite/without-better-sqlite3.cjs"),
    ]);
    expect(r.out).toContain(`ok    pi: ${piHost.scope}/pi-coding-agent ${piHost.version} (`);
    expect(r.out).toMatch(/ok {4}pi: [^\n]*; the `pi` on PATH\n/);
    if (realpathSync(node24) !== realpathSync(shellNode)) {
      expect(r.out).toMatch(/ok {4}node: [\d.]+ runs this command \(needs 20\.6 or later\); pi runs on Node 24\.\d+\.\d+ \(/);
      expect(r.out).toMatch(
        /ok {4}sqlite: pi's Node 24\.\d+\.\d+ \(.*\) has node:sqlite built in, with FTS5; this shell's Node [\d.]+ has none, so pi-governor stats and search run on pi's Node\n/,
      );
      expect(r.out).toMatch(/ok {4}recall index: /);
      expect(r.out).not.toMatch(/degraded at load/);
    }
    expect(tree(join(work, "home"))).toEqual([]);
  });

  it("no SQLite where pi runs: one fix, Node versions that agree, and recall's index off rather than ok", async () => {
    const r = await doctor(["--cwd", join(work, "project")], { PATH: "/usr/bin:/bin", PI_GOVERNOR_SQLITE_DRIVER: "better-sqlite3" }, [
      "--require",
      join(repoRoot, "test/fixtures/sqlite/without-better-sqlite3.cjs"),
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /FAIL {2}sqlite: better-sqlite3 is not installed \(Node [\d.]+\)\n {8}fix: Install better-sqlite3 in .*npm install --no-save better-sqlite3.*\. Without SQLite the execution log and the search index of tool outputs are off; everything else works\.\n/,
    );
    expect(r.out).toMatch(/skip {2}recall index: off: it needs SQLite, and no driver loads/);
    expect(r.out).not.toMatch(/ok {4}recall index/);
    expect(r.out).not.toMatch(/22\.5/);
    expect(tree(join(work, "home"))).toEqual([]);
  });
});

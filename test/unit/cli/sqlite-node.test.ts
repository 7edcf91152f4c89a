/**
 * `pi-governor stats` and `search` read what pi wrote, whichever Node runs them: pi (Node >= 22.13,
 * node:sqlite) writes the execution log and the recall index; the CLI runs on a Node without a
 * SQLite driver (Node 20 whose better-sqlite3 did not install) and re-runs itself on the Node the
 * `pi` command on PATH runs with (a wrapper script naming it, as users install pi on another Node).
 * Without such a `pi`, both commands fail alike: exit 3, the cause and the fix.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../helpers/package-install.ts";
import { repoRoot } from "../../helpers/pi-host.ts";

const olderThanNodeSqlite = (version: string) => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major < 22 || (major === 22 && minor < 13);
};

/** A Node without node:sqlite: this one on the legacy pass, else the one npm runs on (the system's). */
function nodeWithoutSqlite(): string | undefined {
  if (olderThanNodeSqlite(process.versions.node)) return process.execPath;
  const npmNode = process.env.npm_node_execpath;
  if (npmNode && existsSync(npmNode)) {
    const version = spawnVersion(npmNode);
    if (version && olderThanNodeSqlite(version)) return npmNode;
  }
  return undefined;
}

function spawnVersion(node: string): string | undefined {
  try {
    return execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

/** pi's Node: the repository's Node 24 (the `node` devDependency), or this one when it has node:sqlite. */
const piNode = [join(repoRoot, "node_modules/node/bin/node"), process.execPath].find((n) => existsSync(n) && !olderThanNodeSqlite(spawnVersion(n) ?? "0"));
const cliNode = nodeWithoutSqlite();

const work = mkdtempSync(join(tmpdir(), "cli-sqlite-node-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const logPath = join(work, "store", "executions.db");
const indexPath = join(work, "store", "recall", "index.db");
const blobs = join(work, "store", "blobs");

/** `pi-governor <args>` on `node`, without better-sqlite3 (loaded as an argument of this Node only: the re-run does not inherit it). */
async function cli(node: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const r = await run(
    node,
    ["--require", join(repoRoot, "test/fixtures/sqlite/without-better-sqlite3.cjs"), join(repoRoot, "bin/pi-governor.mjs"), ...args],
    work,
    {
      HOME: join(work, "home"),
      PI_CODING_AGENT_DIR: join(work, "agent"),
      PI_GOVERNOR_SQLITE_DRIVER: undefined,
      NODE_OPTIONS: undefined,
      ...env,
    },
  );
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe.skipIf(!cliNode || !piNode)("the shell CLI on a Node without SQLite", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    mkdirSync(join(work, "home"), { recursive: true });
    const wrote = (
      await run(
        piNode!,
        [join(repoRoot, "node_modules/tsx/dist/cli.mjs"), join(repoRoot, "test/fixtures/sqlite/write-stores.ts"), logPath, indexPath, blobs],
        repoRoot,
      )
    ).stdout;
    expect(wrote).toMatch(/wrote both/);
  }, 60_000);

  it("stats and search re-run on the Node the `pi` command on PATH runs with (a wrapper naming it) and read what pi wrote", async () => {
    const bin = join(work, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec "${piNode}" /opt/pi/node_modules/@earendil-works/pi-coding-agent/dist/cli.js "$@"\n`);
    chmodSync(join(bin, "pi"), 0o755);
    const env = { PATH: `${bin}:${dirname(cliNode!)}:/usr/bin:/bin` };
    const stats = await cli(cliNode!, ["stats", "--db", logPath], env);
    expect(stats.err).toBe("");
    expect(stats.code).toBe(0);
    expect(stats.out).toMatch(/^read\s+4\b/m);
    const search = await cli(cliNode!, ["search", "pelican", "--db", indexPath, "--blobs", blobs], env);
    expect(search.err).toBe("");
    expect(search.code).toBe(0);
    expect(search.out).toMatch(/1 output\(s\) match "pelican"/);
    expect(search.out).toMatch(/bash\(cat report\)/);
  });

  it("without such a `pi`, both exit 3 with the cause and the fix", async () => {
    const env = { PATH: `${dirname(cliNode!)}:/usr/bin:/bin` };
    const stats = await cli(cliNode!, ["stats", "--db", logPath], env);
    const search = await cli(cliNode!, ["search", "pelican", "--db", indexPath, "--blobs", blobs], env);
    for (const r of [stats, search]) {
      expect(r.code).toBe(3);
      expect(r.err).toMatch(
        /no SQLite driver loads on Node [\d.]+: node:sqlite needs Node >= 22\.13, and better-sqlite3 is not installed, and the `pi` command/,
      );
      expect(r.err).toMatch(/Fix: run pi-governor with the Node pi runs on \(Node >= 22\.13 has node:sqlite built in\), or install better-sqlite3/);
    }
  });
});

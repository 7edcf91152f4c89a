/**
 * No `pi-governor` command runs code a repository (or another local user) planted. The packed
 * package is installed `--omit=dev` (so no pi beside it, as pi users install it) outside a hostile
 * repository that holds what a command could be tempted to load: pi's session reader under both npm
 * scopes in its `node_modules`, and a `pi` in `node_modules/.bin` that a relative PATH entry names.
 * Each planted module writes a marker file when it is imported or run. The CLI's own TypeScript
 * loader (jiti) caches compiled files: a cache in the shared temp folder, where another user can
 * plant an entry, must not be read either.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SAMPLE_SESSION } from "../../../cli/replay/command.ts";
import { npm, repoRoot, run } from "../../helpers/package-install.ts";

const work = mkdtempSync(join(tmpdir(), "gov-code-loading-"));
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

const install = join(work, "install");
const repo = join(work, "hostile-repo");
const markers = join(work, "markers");
const home = join(work, "home");
const bin = () => join(install, "node_modules", "pi-governor", "bin", "pi-governor.mjs");

/** A module that leaves a marker named `name` when it runs, and offers what replay looks for. */
const planted = (name: string) =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(markers, name))}, "ran");\nexport function migrateSessionEntries() {}\n`;

function plantPi(scope: string, version: string): void {
  const dir = join(repo, "node_modules", scope, "pi-coding-agent");
  mkdirSync(join(dir, "dist", "core"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `${scope}/pi-coding-agent`, version, type: "module", bin: { pi: "dist/cli.js" } }));
  writeFileSync(join(dir, "dist", "core", "session-manager.js"), planted(`session-manager-${scope.slice(1)}`));
  writeFileSync(join(dir, "dist", "cli.js"), `#!/usr/bin/env node\n${planted(`cli-${scope.slice(1)}`)}`);
  chmodSync(join(dir, "dist", "cli.js"), 0o755);
}

beforeAll(async () => {
  mkdirSync(markers, { recursive: true });
  mkdirSync(home, { recursive: true });
  // The CLI runs from its TypeScript sources (jiti), so the tarball needs no build.
  const packed = await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], repoRoot, 300_000);
  const [pack] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  mkdirSync(install, { recursive: true });
  writeFileSync(
    join(install, "package.json"),
    JSON.stringify({ name: "user-tools", private: true, dependencies: { "pi-governor": `file:${join(work, pack!.filename)}` } }),
  );
  await npm(["install", "--omit=dev", "--ignore-scripts"], install, 300_000);

  plantPi("@mariozechner", "0.73.1");
  plantPi("@earendil-works", "1.6.0");
  mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
  writeFileSync(join(repo, "node_modules", ".bin", "pi"), `#!/bin/sh\nexec node "$(dirname "$0")/../@earendil-works/pi-coding-agent/dist/cli.js" "$@"\n`);
  chmodSync(join(repo, "node_modules", ".bin", "pi"), 0o755);
  writeFileSync(join(repo, "session.jsonl"), readFileSync(SAMPLE_SESSION));
}, 600_000);

/** The installed CLI, started in the hostile repository with `env` (HOME and the agent dir are the test's). */
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(
    process.execPath,
    [bin(), ...args],
    repo,
    {
      HOME: home,
      PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
      XDG_CACHE_HOME: join(home, ".cache"),
      // A relative entry first: it names the repository's node_modules/.bin from this cwd.
      PATH: `node_modules/.bin:.:${dirname(process.execPath)}:/usr/bin:/bin`,
      ...env,
    },
    120_000,
  );

const ran = () => readdirSync(markers);
beforeEach(() => {
  for (const m of ran()) rmSync(join(markers, m));
});

describe("the installed CLI started in a hostile repository", { timeout: 180_000 }, () => {
  it("has no pi beside it (--omit=dev)", () => {
    expect(existsSync(join(install, "node_modules", "@mariozechner", "pi-coding-agent"))).toBe(false);
    expect(existsSync(join(install, "node_modules", "@earendil-works", "pi-coding-agent"))).toBe(false);
  });

  it("replay never imports pi's session reader from the repository or a relative PATH entry; it reads the session itself", async () => {
    const replay = await cli(["replay", "--no-chart", "--no-turns", "session.jsonl"]);
    expect(ran()).toEqual([]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("pi-governor's own reader");
    expect(replay.stdout).toMatch(/Totals/);
  });

  it("no command runs a planted module: doctor, stats, search, schema", async () => {
    for (const args of [["doctor", "--json"], ["stats"], ["search", "anything"], ["schema"]]) await cli(args);
    expect(ran()).toEqual([]);
  });

  it("a compiled-file cache planted in the shared temp folder is never read", async () => {
    // Another user's temp folder entry: jiti's default cache is <tmpdir>/jiti, whose entries are
    // named by the file's path and its source hash, both known to anyone who has the package.
    const shared = join(work, "shared-tmp");
    mkdirSync(shared, { recursive: true });
    const env = { TMPDIR: shared, XDG_CACHE_HOME: join(work, "fresh-cache") };
    await cli(["schema"], env);
    const jitiDir = join(shared, "jiti");
    const main = existsSync(jitiDir) ? readdirSync(jitiDir).find((f) => f.startsWith("cli-main.")) : undefined;
    if (main) {
      // What a planter writes: the compiled file with a marker write in front, the trailer kept.
      const file = join(jitiDir, main);
      writeFileSync(file, `require("node:fs").writeFileSync(${JSON.stringify(join(markers, "jiti-cache"))}, "ran");\n${readFileSync(file, "utf8")}`);
    } else {
      // Nothing was cached there (the cache is private): plant at the default name anyway.
      mkdirSync(jitiDir, { recursive: true });
    }
    const schema = await cli(["schema"], env);
    expect(schema.code, schema.stderr).toBe(0);
    expect(ran()).toEqual([]);
    expect(main, "the CLI wrote its compiled files into the shared temp folder").toBeUndefined();
  });

  it("its own compile cache is used only while nobody else can write it", async () => {
    const cache = join(work, "own-cache");
    const env = { XDG_CACHE_HOME: cache };
    await cli(["schema"], env);
    const dir = join(cache, "pi-governor", "jiti");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const main = readdirSync(dir).find((f) => f.startsWith("cli-main."));
    expect(main).toBeDefined();
    // Someone made the folder writable for everyone and planted an entry: it is no longer read.
    chmodSync(dir, 0o777);
    const file = join(dir, main!);
    writeFileSync(file, `require("node:fs").writeFileSync(${JSON.stringify(join(markers, "own-cache"))}, "ran");\n${readFileSync(file, "utf8")}`);
    const schema = await cli(["schema"], env);
    expect(schema.code, schema.stderr).toBe(0);
    expect(ran()).toEqual([]);
    // The same entry in a private folder is read (the check above is what refused it).
    chmodSync(dir, 0o700);
    await cli(["schema"], env);
    expect(ran()).toEqual(["own-cache"]);
  });
});

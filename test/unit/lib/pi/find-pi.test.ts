import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findPi } from "../../../../lib/pi/index.ts";

const work = mkdtempSync(join(tmpdir(), "find-pi-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A pi package at `dir` with a `dist/cli.js`; returns the CLI path. */
function plantPi(dir: string, scope: string, version: string): string {
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `${scope}/pi-coding-agent`, version }));
  const cli = join(dir, "dist", "cli.js");
  writeFileSync(cli, "#!/usr/bin/env node\n");
  chmodSync(cli, 0o755);
  return cli;
}

// A clone of pi-governor with its dev dependency (0.73.1), and a global pi 0.87.1 whose `pi` is on PATH.
const clone = join(work, "pi-governor");
plantPi(join(clone, "node_modules", "@mariozechner", "pi-coding-agent"), "@mariozechner", "0.73.1");
const globalCli = plantPi(join(work, "global", "lib", "node_modules", "@earendil-works", "pi-coding-agent"), "@earendil-works", "0.87.1");
const bin = join(work, "global", "bin");
mkdirSync(bin, { recursive: true });
symlinkSync(globalCli, join(bin, "pi"));

describe("findPi", () => {
  it("in a shell (pathFirst): the `pi` on PATH, not the clone's own dev dependency, and says so", () => {
    expect(findPi({ script: join(clone, "bin", "pi-governor.mjs"), from: [clone], pathVar: `/nonexistent:${bin}`, pathFirst: true })).toMatchObject({
      version: "0.87.1",
      scope: "@earendil-works",
      source: "path",
    });
  });

  it("in a shell without a `pi` on PATH: the one installed beside pi-governor, marked as such", () => {
    expect(findPi({ from: [clone], pathVar: "/nonexistent", pathFirst: true })).toMatchObject({ version: "0.73.1", source: "beside" });
  });

  it("in pi: the pi running this process, whatever PATH and the folders hold", () => {
    expect(findPi({ script: globalCli, from: [clone], pathVar: "" })).toMatchObject({ version: "0.87.1", source: "running" });
    const other = plantPi(join(work, "other", "node_modules", "@mariozechner", "pi-coding-agent"), "@mariozechner", "0.60.0");
    expect(findPi({ script: other, from: [clone], pathVar: bin, pathFirst: true })).toMatchObject({ version: "0.60.0", source: "running" });
  });

  it("skips PATH's relative entries: they name folders of the current directory, which a repository controls", () => {
    const repo = join(work, "repo");
    const cli = plantPi(join(repo, "node_modules", "@earendil-works", "pi-coding-agent"), "@earendil-works", "9.9.9");
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    symlinkSync(cli, join(repo, "node_modules", ".bin", "pi"));
    symlinkSync(cli, join(repo, "pi"));
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      expect(findPi({ pathVar: "node_modules/.bin:.::" })).toBeUndefined();
      // The same folder named absolutely is the user's choice.
      expect(findPi({ pathVar: join(repo, "node_modules", ".bin") })).toMatchObject({ version: "9.9.9", source: "path" });
    } finally {
      process.chdir(cwd);
    }
  });
});

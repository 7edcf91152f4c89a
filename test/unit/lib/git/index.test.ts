/**
 * git runs inside the repository, whose `.git/config` the repository's author may have written (a
 * repository handed over as an archive keeps it): the two queries must be ones git answers without
 * running a configured program (`core.fsmonitor` runs for commands that read the index, such as
 * `git status`; `core.pager` for paged output).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitHead, gitRoot } from "../../../../lib/git/index.ts";

const work = mkdtempSync(join(tmpdir(), "lib-git-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("gitRoot and gitHead in a repository with hostile config", () => {
  it("answer without running the programs its config names", async () => {
    const repo = join(work, "repo");
    const marker = join(work, "ran");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
    execFileSync("git", ["init", "-q", repo]);
    git("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "x");
    for (const key of ["core.fsmonitor", "core.pager", "core.sshCommand", "diff.external"]) git("config", key, `touch ${marker}; false`);
    expect(await gitRoot(repo)).toBe(execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: repo, encoding: "utf8" }).trim());
    expect(await gitHead(repo)).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(marker)).toBe(false);
    // The planted config is live: a command that reads the index runs it.
    try {
      git("status");
    } catch {
      // fsmonitor's `false` makes git warn; what matters is that it ran.
    }
    expect(existsSync(marker)).toBe(true);
  });
});

describe("the git that runs", () => {
  it("is never one a relative PATH entry finds in the repository", async () => {
    const repo = join(work, "planted");
    const marker = join(work, "planted-git-ran");
    execFileSync("git", ["init", "-q", repo]);
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    const fake = join(repo, "node_modules", ".bin", "git");
    writeFileSync(fake, `#!/bin/sh\ntouch ${marker}\necho /fake\n`);
    chmodSync(fake, 0o755);
    const previous = process.env.PATH;
    process.env.PATH = `node_modules/.bin:.:${previous}`;
    try {
      expect(await gitRoot(repo)).toBe(
        execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: repo, env: { ...process.env, PATH: previous }, encoding: "utf8" }).trim(),
      );
    } finally {
      process.env.PATH = previous;
    }
    expect(existsSync(marker)).toBe(false);
  });
});

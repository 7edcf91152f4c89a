/**
 * The `pi` command on PATH, read without running it: pi's own cli.js linked by npm, a wrapper script
 * naming its Node and pi, and everything a project could plant (a `pi` or a `node` inside the
 * repository, a relative PATH entry, a Node others may write) left alone.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPiCommand, untrustedRoots } from "../../../../lib/pi/index.ts";

const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-command-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(path: string, text: string, mode = 0o755): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/** A pi package with its cli.js under `root`. */
function plantPi(root: string, scope: string, version: string): string {
  const dir = join(root, "node_modules", scope, "pi-coding-agent");
  file(join(dir, "package.json"), JSON.stringify({ name: `${scope}/pi-coding-agent`, version }), 0o644);
  return file(join(dir, "dist", "cli.js"), "#!/usr/bin/env node\nimport './main.js';\n");
}

const node24 = file(join(work, "opt", "node-24", "bin", "node"), "#!/bin/sh\n");
const node20 = file(join(work, "usr", "bin", "node"), "#!/bin/sh\n");
const pi16 = plantPi(join(work, "opt", "pi-1.6"), "@earendil-works", "1.6.0");
const pi073 = plantPi(join(work, "global", "lib"), "@mariozechner", "0.73.1");

describe("readPiCommand", () => {
  it("a wrapper script: the Node and the pi it names (quoted or not), without running either", () => {
    const bin = join(work, "wrapper-bin");
    file(join(bin, "pi"), `#!/bin/sh\n# pi on Node 24\nexec "${node24}" ${pi16} "$@"\n`);
    expect(readPiCommand(`${bin}:${join(work, "usr", "bin")}`, [])).toEqual({
      file: join(bin, "pi"),
      kind: "wrapper",
      node: node24,
      pi: { scope: "@earendil-works", version: "1.6.0", dir: join(work, "opt", "pi-1.6", "node_modules", "@earendil-works", "pi-coding-agent") },
    });
  });

  it("pi's cli.js linked onto PATH by npm: its package, and the first `node` on PATH (#!/usr/bin/env node)", () => {
    const bin = join(work, "global", "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(pi073, join(bin, "pi"));
    expect(readPiCommand(`${bin}:${join(work, "usr", "bin")}`, [])).toMatchObject({ kind: "link", node: node20, pi: { version: "0.73.1" } });
    // A `#!` line naming its Node absolutely.
    const abs = file(join(work, "abs", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js"), `#!${node24}\n`);
    file(
      join(work, "abs", "node_modules", "@earendil-works", "pi-coding-agent", "package.json"),
      '{"name":"@earendil-works/pi-coding-agent","version":"1.6.0"}',
      0o644,
    );
    const absBin = join(work, "abs-bin");
    mkdirSync(absBin, { recursive: true });
    symlinkSync(abs, join(absBin, "pi"));
    expect(readPiCommand(absBin, [])).toMatchObject({ kind: "link", node: node24, pi: { version: "1.6.0" } });
  });

  it("never takes a `pi` or a `node` from the project, a relative PATH entry, or a Node others may write", () => {
    const repo = join(work, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    const roots = untrustedRoots(join(repo, "src"));
    expect(roots).toEqual([repo]);
    // The project's own `pi` and `node`, first on PATH and as a relative entry: skipped.
    const planted = file(join(repo, "node_modules", ".bin", "pi"), `#!/bin/sh\nexec ${join(repo, "node")} x.js\n`);
    file(join(repo, "node"), "#!/bin/sh\n");
    const bin = join(work, "wrapper-bin");
    expect(readPiCommand(`node_modules/.bin:${join(repo, "node_modules", ".bin")}:${bin}`, roots)).toMatchObject({ file: join(bin, "pi"), node: node24 });
    expect(readPiCommand(join(repo, "node_modules", ".bin"), roots)).toBeUndefined();
    expect(readPiCommand(join(repo, "node_modules", ".bin"), [])).toMatchObject({ file: planted });
    // A wrapper outside the project naming a Node inside it, or a Node anyone may write: no Node.
    const sneaky = join(work, "sneaky-bin");
    file(join(sneaky, "pi"), `#!/bin/sh\nexec ${join(repo, "node")} ${pi16}\n`);
    expect(readPiCommand(sneaky, roots)).toMatchObject({ kind: "wrapper", pi: { version: "1.6.0" } });
    expect(readPiCommand(sneaky, roots)?.node).toBeUndefined();
    const open = file(join(work, "open", "node"), "#!/bin/sh\n", 0o777);
    file(join(sneaky, "pi"), `#!/bin/sh\nexec ${open} ${pi16}\n`);
    expect(readPiCommand(sneaky, [])?.node).toBeUndefined();
  });

  it("outside any repository the cwd is the project, unless it is the home folder or above it", () => {
    expect(untrustedRoots(join(work, "plain"), join(work, "home"))).toEqual([join(work, "plain")]);
    expect(untrustedRoots(join(work, "home"), join(work, "home"))).toEqual([]);
    expect(untrustedRoots("/", join(work, "home"))).toEqual([]);
  });
});

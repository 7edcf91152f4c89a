/**
 * Config files a cloned repository ships are untrusted files: a link to a device (`/dev/zero`,
 * `/dev/stdin`), a FIFO, a link out of the repository or a huge file must be refused with a problem,
 * quickly and without reading more than the size cap, and the rest of the config must still load.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_MAX_BYTES, loadConfigLayers } from "pi-governor/host";

let root: string;
let agentDir: string;
let cwd: string;
let projectFile: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pigov-layer-files-"));
  agentDir = join(root, "agent");
  cwd = join(root, "repo");
  projectFile = join(cwd, ".pi", "pi-governor.json");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ prune: { keepRecentTurns: 3 } }));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const load = () => loadConfigLayers({ cwd, agentDir, env: {} });

/** The global layer still loads, and the project file is one problem matching `why`. */
function expectRefused(why: RegExp): void {
  const { layers, problems } = load();
  expect(layers.map((l) => l.source)).toEqual([join(agentDir, "pi-governor.json")]);
  expect(problems).toHaveLength(1);
  expect(problems[0]!.source).toBe(projectFile);
  expect(problems[0]!.message).toMatch(why);
}

describe("project config files that are not plain files", () => {
  it("a link to /dev/zero is refused without reading it", () => {
    symlinkSync("/dev/zero", projectFile);
    expectRefused(/symbolic link.*outside the project/);
  });

  it("a link to /dev/stdin is refused", () => {
    symlinkSync("/dev/stdin", projectFile);
    expectRefused(/symbolic link/);
  });

  it("a .pi folder that links out of the repository is refused", () => {
    rmSync(join(cwd, ".pi"), { recursive: true });
    mkdirSync(join(root, "elsewhere"));
    writeFileSync(join(root, "elsewhere", "pi-governor.json"), JSON.stringify({ prune: { keepRecentTurns: 9 } }));
    symlinkSync(join(root, "elsewhere"), join(cwd, ".pi"));
    expectRefused(/symbolic link.*outside the project/);
  });

  it("a FIFO is refused without blocking", () => {
    execFileSync("mkfifo", [projectFile]);
    expectRefused(/not a regular file/);
  });

  it("a file over the size cap is refused (sparse: its size alone decides)", () => {
    writeFileSync(projectFile, "{}");
    truncateSync(projectFile, 6 * 1024 ** 3);
    expectRefused(new RegExp(`larger than ${CONFIG_MAX_BYTES / 1024} KiB`));
  });

  it("a link inside the repository to a regular file is read", () => {
    writeFileSync(join(cwd, "shared.json"), JSON.stringify({ prune: { keepRecentTurns: 5 } }));
    symlinkSync("../shared.json", projectFile);
    const { layers, problems } = load();
    expect(problems).toEqual([]);
    expect(layers.map((l) => l.data)).toEqual([{ prune: { keepRecentTurns: 3 } }, { prune: { keepRecentTurns: 5 } }]);
  });
});

describe("the global config file", () => {
  it("may be a link (dotfiles), but must end at a regular file", () => {
    rmSync(join(agentDir, "pi-governor.json"));
    mkdirSync(join(root, "dotfiles"));
    writeFileSync(join(root, "dotfiles", "pi-governor.json"), JSON.stringify({ prune: { keepRecentTurns: 4 } }));
    symlinkSync(join(root, "dotfiles", "pi-governor.json"), join(agentDir, "pi-governor.json"));
    expect(load().layers.map((l) => l.data)).toEqual([{ prune: { keepRecentTurns: 4 } }]);
    rmSync(join(agentDir, "pi-governor.json"));
    symlinkSync("/dev/zero", join(agentDir, "pi-governor.json"));
    const { layers, problems } = load();
    expect(layers).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/not a regular file/)]);
  });
});

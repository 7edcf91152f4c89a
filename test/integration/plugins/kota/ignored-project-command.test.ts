/**
 * A project file that sets kota.command without the global file allowing it: the command is ignored
 * (a cloned repository must not choose what runs), and the user learns that from the spawn error and
 * from kota_status / `/kota status`, with the line that allows it. Real config files on disk.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { kota } from "../../../../plugins/kota/index.ts";
import { standinKotaConfig } from "../../../helpers/kota-standin.ts";

let root: string;
let governor: Governor | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "kota-ignored-"));
  mkdirSync(join(root, "agent"));
  mkdirSync(join(root, "repo", ".pi"), { recursive: true });
});

afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: join(root, "repo"), reason: "quit" });
  governor = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function build(global: Record<string, unknown>): Promise<Governor> {
  const { command, args } = standinKotaConfig() as { command: string; args: string[] };
  writeFileSync(join(root, "agent", "pi-governor.json"), JSON.stringify(global));
  writeFileSync(join(root, "repo", ".pi", "pi-governor.json"), JSON.stringify({ kota: { command, args } }));
  const preset = definePreset({ name: "kota-only", description: "", commandRoot: "kota", plugins: () => [kota()] });
  // No bun on PATH: the default command cannot be found, as on a machine without Bun.
  governor = await createGovernor({ preset, cwd: join(root, "repo"), agentDir: join(root, "agent"), env: { PATH: join(root, "empty-bin"), HOME: root } });
  return governor;
}

describe("a project's ignored kota.command", () => {
  it("the not-on-PATH error and kota_status name the project file and the line that allows it", async () => {
    const g = await build({ prune: { keepRecentTurns: 2 } });
    expect(g.config.ignoredTrustedKeys.map((k) => k.key)).toEqual(["command", "args"]);
    const projectFile = join(root, "repo", ".pi", "pi-governor.json");
    const globalFile = join(root, "agent", "pi-governor.json");
    const note = `The project's kota.command, kota.args (set in ${projectFile}) were ignored: a project config may not choose what program runs. If you trust this repository, add "allowProjectSpawnConfig": true to ${globalFile}, then run /kota restart.`;

    const answer = contentText((await g.pipeline.callTool("kota_search", { query: "x" })).content);
    expect(answer).toContain("`bun` is not on PATH");
    expect(answer).toContain(note);

    const status = contentText((await g.pipeline.callTool("kota_status", {})).content);
    expect(status).toContain(note);
  });

  it("says nothing about it when the global file allows project commands (the stand-in starts)", async () => {
    const g = await build({ allowProjectSpawnConfig: true });
    expect(g.config.ignoredTrustedKeys).toEqual([]);
    const status = contentText((await g.pipeline.callTool("kota_status", {})).content);
    expect(status).not.toMatch(/(was|were) ignored/);
    expect(status).not.toMatch(/not on PATH/);
  });
});

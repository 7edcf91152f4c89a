/**
 * Every pi-governor command answers the user in the pi modes a test can drive: the real `pi` CLI in
 * print mode (`-p`: the answer on stderr, where pi puts nothing of its own) and in RPC mode (`--mode
 * rpc`: a notify request to the client). The kota preset over the KotaDB stand-in, on a fixture repo.
 */
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { createFixtureRepo, type FixtureRepo } from "../fixtures/kota-repo.ts";
import { standinKotaConfig } from "../helpers/kota-standin.ts";
import { repoRoot, runPiCli, runPiRpc, type RpcLine } from "../helpers/pi-cli.ts";

const kotaExtension = join(repoRoot, "presets/kota/extension.ts");

/** Each command and a line its answer must contain. */
const COMMANDS: ReadonlyArray<[command: string, answer: RegExp]> = [
  ["/governor status", /pi-governor: preset "kota"\nStages in run order:/],
  ["/kota status", /Repository root: /],
  ["/kota pruning", /Pruning: on/],
  ["/kota recall", /Recall index: /],
  ["/kota search config", /config/],
  ["/kota blobs", /blob/i],
  ["/kota restart", /KotaDB restarted/],
  ["/kota", /Repository root: /],
];

let repo: FixtureRepo;
let work: string;
beforeEach(() => {
  repo = createFixtureRepo();
  work = mkdtempSync(join(tmpdir(), "pigov-cmd-modes-"));
});
afterEach(() => {
  repo.remove();
  rmSync(work, { recursive: true, force: true });
});

const env = () => ({
  PI_GOVERNOR_CONFIG: JSON.stringify({ kota: standinKotaConfig(), blobs: { dir: join(work, "blobs") }, recall: { dbPath: join(work, "recall.db") } }),
});

describe("pi-governor commands answer in print mode (pi -p)", () => {
  it("writes each command's answer to stderr; none reaches the model", async (ctx) => {
    skipWithoutSqlite(ctx);
    const run = await runPiCli({ extensions: [kotaExtension], script: [], prompt: COMMANDS.map(([c]) => c), cwd: repo.root, env: env(), timeoutMs: 90_000 });
    for (const [command, answer] of COMMANDS) expect(run.stderr, command).toMatch(answer);
    // The same question twice is answered twice (commands are never deduplicated like load notices).
    expect(run.stderr.split("Repository root: ").length - 1).toBe(2);
    expect(run.calls).toHaveLength(0);
  }, 120_000);
});

describe("pi-governor commands answer in RPC mode (pi --mode rpc)", () => {
  it("sends each command's answer to the client as a notify request", async (ctx) => {
    skipWithoutSqlite(ctx);
    const run = await runPiRpc({
      extensions: [kotaExtension],
      script: [{ text: "hi" }],
      prompt: "hello",
      then: COMMANDS.map(([message]) => ({ type: "prompt", message })),
      cwd: repo.root,
      env: env(),
      timeoutMs: 90_000,
    });
    const notices = run.lines
      .filter((l): l is RpcLine & { message: string } => l.type === "extension_ui_request" && l.method === "notify")
      .map((l) => String(l.message));
    for (const [command, answer] of COMMANDS) expect(notices.join("\n---\n"), command).toMatch(answer);
    COMMANDS.forEach((_, i) => expect(run.lines.find((l) => l.type === "response" && l.id === `then-${i + 1}`)).toMatchObject({ success: true }));
    expect(run.stderr).not.toMatch(/Repository root/);
  }, 120_000);
});

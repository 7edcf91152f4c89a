import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { standinKotaConfig } from "../helpers/kota-standin.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

const kotaExtension = join(repoRoot, "presets/kota/extension.ts");

describe("/governor doctor in the real pi CLI (print mode)", () => {
  it("prints the report on stderr: KotaDB (the stand-in) really started and stopped, a config problem with its file", async () => {
    const run = await runPiCli({
      extensions: [kotaExtension],
      script: [],
      prompt: "/governor doctor",
      env: { PI_GOVERNOR_CONFIG: JSON.stringify({ kota: standinKotaConfig(), prune: { keepRecentTurnz: 2 } }) },
      timeoutMs: 90_000,
    });
    expect(run.stderr).toMatch(/pi-governor doctor/);
    expect(run.stderr).toMatch(/ok {4}pi: @(mariozechner|earendil-works)\/pi-coding-agent \d+\.\d+\.\d+/);
    expect(run.stderr).toMatch(/ok {4}kotadb: started .* \d+ tools/);
    expect(run.stderr).toMatch(/FAIL  config: env PI_GOVERNOR_CONFIG: prune\.keepRecentTurnz: unknown key/);
    expect(run.stderr).toMatch(/ok {4}preset: "kota"/);
    // The slash command never reaches the model.
    expect(run.calls).toHaveLength(0);
  }, 120_000);

  it("/kota doctor is the same command", async () => {
    const run = await runPiCli({ extensions: [kotaExtension], script: [], prompt: "/kota doctor", env: { PI_GOVERNOR_CONFIG: JSON.stringify({ kota: { command: "no-such-kotadb-binary" } }) }, timeoutMs: 60_000 });
    expect(run.stderr).toMatch(/FAIL  kota\.command \(no-such-kotadb-binary\): `no-such-kotadb-binary` is not on PATH/);
    expect(run.calls).toHaveLength(0);
  }, 90_000);
});

/**
 * `/governor doctor` through the real pi CLI in the modes a test can drive: print mode (`-p`: the
 * report on stderr) and RPC mode (`--mode rpc`: the report as a notify request to the client, the
 * way an IDE embedding pi shows it). Interactive mode needs a terminal (pi's TUI reads a TTY), so it
 * is not driven here; it shows the same notification through the same `ctx.ui.notify` call as RPC
 * mode, which is what the RPC test checks.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { standinKotaConfig } from "../helpers/kota-standin.ts";
import { repoRoot, runPiCli, runPiRpc, type RpcLine } from "../helpers/pi-cli.ts";
import { piHost } from "../helpers/pi-host.ts";

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
    // The pi in use is the one running the session (not pi-governor's own dev dependency), and it says so.
    expect(run.stderr).toContain(`${piHost.scope}/pi-coding-agent ${piHost.version} (`);
    expect(run.stderr).toMatch(/ok {4}pi: [^\n]*; the pi running this session\n/);
    expect(run.stderr).toMatch(/ok {4}kotadb: started .* \d+ tools/);
    expect(run.stderr).toMatch(/FAIL {2}config: env PI_GOVERNOR_CONFIG: prune\.keepRecentTurnz: unknown key/);
    expect(run.stderr).toMatch(/ok {4}preset: "kota"/);
    // The slash command never reaches the model.
    expect(run.calls).toHaveLength(0);
  }, 120_000);

  it("/kota doctor is the same command", async () => {
    const run = await runPiCli({
      extensions: [kotaExtension],
      script: [],
      prompt: "/kota doctor",
      env: { PI_GOVERNOR_CONFIG: JSON.stringify({ kota: { command: "no-such-kotadb-binary" } }) },
      timeoutMs: 60_000,
    });
    expect(run.stderr).toMatch(/FAIL {2}kota\.command \(no-such-kotadb-binary\): `no-such-kotadb-binary` is not on PATH/);
    expect(run.calls).toHaveLength(0);
  }, 90_000);
});

describe("/governor doctor in the real pi CLI (RPC mode)", () => {
  it("reaches the RPC client as one notify request: every check, and each failing check with its fix", async () => {
    const run = await runPiRpc({
      extensions: [kotaExtension],
      script: [{ text: "hi" }],
      prompt: "hello",
      then: [{ type: "prompt", message: "/governor doctor" }],
      env: { PI_GOVERNOR_CONFIG: JSON.stringify({ kota: { command: "no-such-kotadb-binary" }, prune: { keepRecentTurnz: 2 } }) },
      timeoutMs: 90_000,
    });
    // pi answers a slash-command prompt once the command has run.
    expect(run.lines.find((l) => l.type === "response" && l.id === "then-1")).toMatchObject({ command: "prompt", success: true });
    const reports = run.lines.filter(
      (l): l is RpcLine & { message: string; notifyType?: string } =>
        l.type === "extension_ui_request" && l.method === "notify" && String(l.message).startsWith("pi-governor doctor\n"),
    );
    expect(reports).toHaveLength(1);
    const report = reports[0]!;
    // The report is the answer (info); what failed follows on one line at error level.
    expect(report.notifyType).toBe("info");
    const summary = run.lines.filter((l) => l.type === "extension_ui_request" && l.method === "notify" && String(l.message).startsWith("pi-governor doctor: "));
    expect(summary).toEqual([
      expect.objectContaining({ notifyType: "error", message: expect.stringMatching(/^pi-governor doctor: failed: [^\n]*kota\.command/) }),
    ]);
    expect(report.message).toMatch(/ok {4}pi: @(mariozechner|earendil-works)\/pi-coding-agent \d+\.\d+\.\d+/);
    expect(report.message).toMatch(/ok {4}preset: "kota"/);
    // Each failed check, then its fix on the next line.
    expect(report.message).toMatch(/FAIL {2}kota\.command \(no-such-kotadb-binary\): `no-such-kotadb-binary` is not on PATH\n {8}fix: \S/);
    expect(report.message).toMatch(/FAIL {2}config: .*\n {8}fix: Fix each line below in the file it names/);
    expect(report.message).toMatch(/env PI_GOVERNOR_CONFIG: prune\.keepRecentTurnz: unknown key/);
    // The client is the user here: nothing of the report on stderr, and the command never reached the model.
    expect(run.stderr).not.toMatch(/pi-governor doctor/);
    expect(run.lines.filter((l) => l.type === "agent_end")).toHaveLength(1);
  }, 120_000);
});

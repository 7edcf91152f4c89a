/**
 * A token in the global `kota.args` (or a known token shape there) never reaches the model: KotaDB
 * that fails to start is reported with its command line, stderr and the start hint, all redacted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { kota } from "../../../../plugins/kota/index.ts";
import { redact } from "../../../../plugins/redact/index.ts";

const TOKEN = ["ghp", "_", "KotaArgs".repeat(4), "Yy01"].join("");
const PLAIN = ["plain", "Secret", "Value", "77"].join("");

describe("kota: a failed start with a token in kota.args", () => {
  let dir: string;
  let gov: Governor | undefined;
  afterEach(async () => {
    await gov?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([true, false])("hides it in the tool error and kota_status (redact plugin on: %s)", async (on) => {
    dir = mkdtempSync(join(tmpdir(), "pigov-kota-redact-"));
    const preset = definePreset({ name: "kota-redact", description: "", commandRoot: "kota", plugins: () => [redact(), kota()] });
    // A "KotaDB" that prints its arguments to stderr and exits during start.
    const args = [
      "-e",
      "process.stderr.write('args: ' + process.argv.slice(1).join(' ') + '\\n'); process.exit(3)",
      "--",
      "--token",
      PLAIN,
      `--github=${TOKEN}`,
    ];
    gov = await createGovernor({
      preset,
      cwd: dir,
      agentDir: dir,
      env: { PATH: process.env.PATH },
      layers: [
        { kind: "global", source: "test", data: { redact: { enabled: on }, kota: { command: process.execPath, args, toolset: "", connectTimeoutMs: 5_000 } } },
      ],
    });
    gov.attachSession("s", { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false });
    const failed = await gov.pipeline.callTool("kota_search", { query: "x" });
    const status = await gov.pipeline.callTool("kota_status", {});
    const text = `${contentText(failed.content)}\n${contentText(status.content)}`;
    expect(failed.status).toBe("ERROR");
    expect(text).toContain("--token");
    if (!on) {
      expect(text).toContain(PLAIN);
      return;
    }
    expect(text).not.toContain(PLAIN);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("--token [redacted:argument]");
    expect(text).toContain("Command: ");
  });
});

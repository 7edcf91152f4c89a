/**
 * pi's own cut never leaves the rest of a secret for the model, in real pi (print mode, lean preset):
 * - `bash` past pi's 50 KB: pi keeps the last 50 KB of a one-line JSON, starting inside a GitHub
 *   token (35 of its characters would be left, which no rule recognises);
 * - `bash` past pi's 2,000 lines: pi keeps the last lines, starting inside a private key's body (the
 *   BEGIN line cut away, the base64 lines left);
 * - pi 1.x's own MCP client past 20 KB: pi keeps the first and last 10 KB, each cut inside a token, so
 *   the two halves rebuild it.
 * The secrets are found in the whole output pi saved, and every piece of them the model would see is
 * hidden.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIG_ANSWER_SERVER } from "../fixtures/big-answer-mcp/command.ts";
import { repoRoot, runPiCli, type ScriptStep } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";

// Built at run time: no whole secret in the repository's source.
const TOKEN = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const rnd = (n: number, seed: number) => Array.from({ length: n }, (_, i) => B64[(i * 37 + seed * 11 + ((i * i) % 17)) % B64.length]).join("");
const KEY_LINES = Array.from({ length: 30 }, (_, i) => rnd(64, i + 1));
/** pi's bash keeps the last 50 KiB (and at most 2,000 lines); its MCP client the first and last 10 KiB of 20 KiB. */
const BASH_MAX_BYTES = 50 * 1024;

/** Every `n`-character piece of `secret`. */
const pieces = (secret: string, n: number) => Array.from({ length: secret.length - n + 1 }, (_, i) => secret.slice(i, i + n));

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

/** Runs pi once in print mode with the lean preset; returns the text of the one tool result the model got. */
async function modelSees(files: Record<string, string>, script: ScriptStep[], agentFiles: Record<string, unknown> = {}): Promise<string> {
  const ws = piWorkspace("pigov-cut-edges-");
  work = ws.root;
  const { project, agentDir, home } = ws;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  for (const [name, value] of Object.entries(agentFiles)) writeFileSync(join(agentDir, name), JSON.stringify(value));
  const run = await runPiCli({
    extensions: [repoRoot],
    script,
    prompt: "go",
    cwd: project,
    env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean" },
    timeoutMs: 120_000,
  });
  expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
  const results = (run.calls.at(-1)?.messages ?? []).filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(1);
  return JSON.parse(JSON.stringify(results[0]!.content))
    .map((b: { text?: string }) => b.text ?? "")
    .join("\n");
}

describe("pi's cut splits a secret: the model sees no piece of it", () => {
  it("bash past 50 KB: the kept tail starts inside a token", async () => {
    // One JSON line; the token starts 5 characters before the last 50 KiB.
    const tail = `${TOKEN}","more":["${"w".repeat(BASH_MAX_BYTES)}`.slice(0, BASH_MAX_BYTES + 5 - 2);
    const line = `{"items":[${'"x",'.repeat(2_000)}"token":"${tail}"}`;
    const seen = await modelSees({ "out.json": line }, [{ toolCall: { name: "bash", arguments: { command: "cat out.json" } } }, { text: "done" }]);
    expect(seen, "pi cut the output").toContain("Full output:");
    expect(seen).toContain('","more":["www');
    for (const p of pieces(TOKEN, 8)) expect(seen.includes(p), `the model saw ${p}`).toBe(false);
    expect(seen).toContain("[redacted:github-token]");
  }, 150_000);

  it("bash past 2,000 lines: the kept lines start inside a private key's body", async () => {
    const lines = [
      ...Array.from({ length: 89 }, (_, i) => `log line ${i}`),
      "-----BEGIN RSA PRIVATE KEY-----",
      ...KEY_LINES,
      "-----END RSA PRIVATE KEY-----",
      ...Array.from({ length: 1_980 }, (_, i) => `later line ${i}`),
    ];
    const seen = await modelSees({ "out.log": `${lines.join("\n")}\n` }, [
      { toolCall: { name: "bash", arguments: { command: "cat out.log" } } },
      { text: "done" },
    ]);
    expect(seen, "pi cut the output by lines").toMatch(/Showing lines \d+-\d+ of/);
    expect(seen).toContain("later line 1979");
    for (const k of KEY_LINES) for (const p of pieces(k, 16)) expect(seen.includes(p), `the model saw ${p}`).toBe(false);
    expect(seen).toContain("[redacted:private-key]");
  }, 150_000);

  it.skipIf(!piHasBuiltinMcp)(
    `pi ${piHost.version}'s MCP client past 20 KB: both kept halves start or end inside a token`,
    async () => {
      // Rows of 99 characters and a newline; the token at 20-59 of each row. pi keeps bytes [0, 10240)
      // and the last 10240: the head ends 20 characters into a token, the tail starts 30 into one.
      const row = `${"x".repeat(16)}tok ${TOKEN} `.padEnd(99, ".");
      const seen = await modelSees({}, [{ toolCall: { name: "mcp__big__big", arguments: { bytes: 29_970, line: row } } }, { text: "done" }], {
        "mcp.json": { mcpServers: { big: { command: process.execPath, args: [BIG_ANSWER_SERVER], exposure: "direct" } } },
      });
      expect(seen, "pi cut the answer in the middle").toMatch(/chars truncated/);
      for (const p of pieces(TOKEN, 8)) expect(seen.includes(p), `the model saw ${p}`).toBe(false);
      expect(seen).toContain("[redacted:github-token]");
    },
    150_000,
  );
});

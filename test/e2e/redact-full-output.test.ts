/**
 * Secrets in pi's full-output file never persist, end to end: the real `pi` CLI in print mode (lean
 * preset) runs `bash` on an output of 3,000+ lines, so pi cuts it for the model and saves the whole
 * of it to a temp file. The output holds a GitHub token and an AWS key id in plain text, and `kubectl
 * get secret -o json` output (a private key and AWS_SECRET_ACCESS_KEY inside the applied JSON, itself
 * a JSON string) printed once as it is and once JSON-escaped twice more. Part of it is only in the
 * full-output file. With blobs' default threshold (the blobs plugin stores the full output) and with
 * it raised above the output (the recall plugin stores it), none of the secrets reaches the model,
 * the blob cache, the recall index (the SQLite files read as bytes, case ignored) or `pi-governor
 * search`, while the output is found there, redacted. On pi 1.x, an answer of pi's own MCP client past
 * its 20 KB cut (a token and an escaped key id in each of 1,000 rows): the recall plugin stores all of
 * it from pi's file, redacted.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { bigAnswerServer } from "../fixtures/big-answer-mcp/command.ts";
import { everyFileUnder } from "../helpers/files-under.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";
import { hermeticDefaultPreset } from "../helpers/hermetic-preset.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { piTestScope } from "../helpers/pi-session.ts";

// Built at run time: no whole secret in the repository's source.
const rnd = (chars: string, n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => chars[(i * 37 + seed * 11 + ((i * i) % 17)) % chars.length]).join("");
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const TOKEN = ["ghp", "_", rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36, 1)].join("");
const AWS_KEY_ID = ["AK", "IA", rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 2)].join("");
const AWS_SECRET = rnd(B64, 40, 3);
const KEY_LINES = [1, 2, 3, 4].map((i) => `MII${rnd(B64, 61, 10 + i)}`);
const PEM = ["-----BEGIN RSA PRIVATE KEY-----", ...KEY_LINES, "-----END RSA PRIVATE KEY-----", ""].join("\n");
const SECRETS = [TOKEN, AWS_KEY_ID, AWS_SECRET, ...KEY_LINES];

/** `kubectl get secret app -o json` for a secret created with `kubectl apply`. */
function kubectlSecret(): string {
  const applied = { apiVersion: "v1", kind: "Secret", metadata: { name: "app" }, stringData: { AWS_SECRET_ACCESS_KEY: AWS_SECRET, "tls.key": PEM } };
  return JSON.stringify(
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "app", annotations: { "kubectl.kubernetes.io/last-applied-configuration": `${JSON.stringify(applied)}\n` } },
      type: "Opaque",
    },
    null,
    4,
  );
}

/** The command's output: secrets at the head (only in pi's full-output file) and at the tail (what the model sees). */
function commandOutput(): string {
  const secrets = [
    `export GITHUB_TOKEN=${TOKEN}`,
    `aws_access_key_id = ${AWS_KEY_ID}`,
    kubectlSecret(),
    JSON.stringify(JSON.stringify({ log: kubectlSecret() })),
  ].join("\n");
  const filler = Array.from({ length: 3_000 }, (_, i) => `step ${i}: compiled module ${i % 97} in ${i % 13} ms`).join("\n");
  return `headmarker kubectl secrets follow\n${secrets}\n${filler}\ntailmarker again\n${secrets}\n`;
}

/** Fails naming the secret that `text` holds, exactly or in another case (the index lowercases its terms). */
function expectNoSecret(text: string, where: string): void {
  const lower = text.toLowerCase();
  for (const secret of SECRETS) {
    expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
    expect(lower.includes(secret.toLowerCase()), `${where} holds ${secret} (lower case)`).toBe(false);
  }
}

describe("pi -p, lean preset: bash output past pi's cut, with secrets plain and JSON-escaped", () => {
  for (const [label, blobs] of [
    ["the blobs plugin stores pi's full output (default threshold)", {}],
    ["the recall plugin stores it (blobs' threshold raised above the output)", { thresholdBytes: 4 * 1024 * 1024 }],
  ] as const) {
    it(`keeps every secret from the model, the blob cache, the recall index and pi-governor search: ${label}`, async () => {
      const home = mkdtempSync(join(tmpdir(), "pigov-full-output-e2e-"));
      const project = join(home, "project");
      mkdirSync(project);
      writeFileSync(join(project, "secrets.txt"), commandOutput());
      const blobDir = join(home, "cache", "blobs");
      const dbPath = join(home, "cache", "recall.db");
      try {
        const config = { preset: "lean", blobs: { dir: blobDir, ...blobs }, recall: { dbPath } };
        const run = await runPiCli({
          extensions: [repoRoot],
          script: [{ toolCall: { name: "bash", arguments: { command: "cat secrets.txt" } } }, { text: "done" }],
          prompt: "show the secret",
          cwd: project,
          env: { HOME: home, PI_GOVERNOR_CONFIG: JSON.stringify(config) },
          timeoutMs: 120_000,
        });
        expect(run.code, `exit code\nstderr:\n${run.stderr}`).toBe(0);

        // pi cut the output (the head is only in its full-output file); the model got the tail, redacted.
        const result = (run.calls.at(-1)?.messages ?? []).find((m) => m.role === "toolResult" && m.toolName === "bash");
        const seen = JSON.stringify(result?.content ?? "");
        expect(seen).toContain("tailmarker");
        expect(seen).toContain("[redacted:private-key]");
        expect(seen).toContain("[redacted:aws-secret-key]");
        expectNoSecret(JSON.stringify(run.calls), "the model's requests");

        // The blob cache and the recall index (with its -wal) hold the whole output, redacted.
        expect(existsSync(dbPath)).toBe(true);
        const disk = everyFileUnder(join(home, "cache"));
        expect(disk).toContain("headmarker");
        expect(disk).toContain("redacted:github-token");
        expect(disk).toContain("redacted:private-key");
        expectNoSecret(disk, "the cache (blobs and recall index)");
        expectNoSecret(everyFileUnder(join(home, ".pi")), "the agent dir");

        // pi-governor search finds the head (only in the full output) and prints no secret.
        const search = spawnSync(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), "search", "headmarker", "--db", dbPath, "--blobs", blobDir], {
          encoding: "utf8",
          env: { ...process.env, HOME: home },
        });
        expect(search.status, search.stderr).toBe(0);
        expect(search.stdout).toContain("bash");
        expectNoSecret(search.stdout, "pi-governor search");
        const json = spawnSync(
          process.execPath,
          [join(repoRoot, "bin/pi-governor.mjs"), "search", "kubectl", "secrets", "--json", "--db", dbPath, "--blobs", blobDir],
          {
            encoding: "utf8",
            env: { ...process.env, HOME: home },
          },
        );
        expect(json.status, json.stderr).toBe(0);
        expectNoSecret(json.stdout, "pi-governor search --json");
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }, 150_000);
  }
});

// pi 1.x cuts an MCP answer over 20 KB for the model and saves the whole of it; recall stores that file.
describe.skipIf(!piHasBuiltinMcp)(`pi ${piHost.version} SDK, default preset: an MCP answer of pi's own mcp.json past pi's 20 KB cut`, () => {
  const scope = piTestScope();

  it("keeps the secrets in pi's full-output file from the model's view of the result, the blob cache and the recall index", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-mcp-full-redact-");
    const server = bigAnswerServer();
    // One 99-character row, repeated by the server up to 100 KB: a token and an escaped JSON secret per row.
    const row = `GITHUB_TOKEN=${TOKEN} ${JSON.stringify(JSON.stringify({ k: `${AWS_KEY_ID}` }))}`.padEnd(99, ".");
    try {
      const pi = await scope.start({
        extensions: [hermeticDefaultPreset(work)],
        cwd: work,
        piMcp: { servers: { big: { command: server.command, args: server.args, env: server.env, exposure: "direct" } } },
        responses: [
          fauxAssistantMessage([fauxToolCall("mcp__big__big", { bytes: 100_000, line: row })], { stopReason: "toolUse" }),
          fauxAssistantMessage([fauxText("done")]),
        ],
      });
      await pi.session.prompt("Fetch the big answer.");
      const result = pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === "mcp__big__big") as
        | { content?: unknown; details?: Record<string, unknown> }
        | undefined;
      expect(result?.details?.fullOutputPath, "pi cut the answer and saved it").toEqual(expect.any(String));
      // What the model reads (the call's own arguments are the model's text and stay as it wrote them).
      expect(JSON.stringify(result?.content)).toContain("[redacted:github-token]");
      expectNoSecret(JSON.stringify(result?.content), "the result the model reads");
      // The whole answer is stored (recall, from pi's file) and indexed, redacted.
      const blobId = result?.details?.blobId;
      expect(blobId).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
      for (let i = 0; i < 100 && !existsSync(join(work, "blobs", `${blobId}.txt`)); i++) await new Promise((r) => setTimeout(r, 50));
      const stored = readFileSync(join(work, "blobs", `${blobId}.txt`), "utf8");
      // All 1,000 rows (pi's cut kept about 200), each with its token hidden.
      expect(stored.split("GITHUB_TOKEN=[redacted:github-token]").length - 1).toBe(1_000);
      // The index is written off the result path: wait for the output's row.
      const index = () => ["recall.db", "recall.db-wal"].map((f) => (existsSync(join(work, f)) ? readFileSync(join(work, f), "latin1") : "")).join("");
      for (let i = 0; i < 200 && !index().includes("mcp__big__big"); i++) await new Promise((r) => setTimeout(r, 50));
      expect(index()).toContain("mcp__big__big");
      expectNoSecret(everyFileUnder(join(work, "blobs")), "the blob cache");
      expectNoSecret(index(), "the recall index");
    } finally {
      server.cleanup();
    }
  });
});

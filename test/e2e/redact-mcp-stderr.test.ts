/**
 * Secrets never persist, end to end: the real `pi` CLI in print mode with the mcp preset runs a real
 * MCP server (server-everything behind the fault wrapper) that prints a GitHub token and the
 * credential the user gave it in its env to stderr, then crashes at start. The model's tool call
 * fails with the server's stderr tail in the error text; neither the token nor the credential reaches
 * the model, the blob cache, the recall index (the SQLite file read as bytes) or `pi-governor search`,
 * while the redacted stderr does.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { faultyServer } from "../fixtures/faulty-mcp/command.ts";
import { everyFileUnder } from "../helpers/files-under.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

// Built at run time: no whole token in the repository's source.
const TOKEN = ["ghp", "_", "StderrLeak".repeat(3), "Qz7x01"].join("");
const CREDENTIAL = ["acme", "Cred", "-", "9f3e", "71b2c5"].join("");

describe("pi -p, mcp preset: a server that prints its token to stderr and crashes", () => {
  it("keeps the token and the env credential from the model, the blob cache, the recall index and pi-governor search", async (ctx) => {
    skipWithoutSqlite(ctx);
    const home = mkdtempSync(join(tmpdir(), "pigov-redact-e2e-"));
    const stderrFile = join(home, "server-stderr.txt");
    writeFileSync(stderrFile, `auth: using GITHUB token ${TOKEN}\nconfig: credential ${CREDENTIAL} rejected\n`);
    const faulty = faultyServer({ mode: "exit-at-start", extraEnv: { FAULT_STDERR_FILE: stderrFile, ACME_CREDENTIAL: CREDENTIAL } });
    const blobDir = join(home, "cache", "blobs");
    const dbPath = join(home, "cache", "recall.db");
    try {
      const servers = {
        everything: {
          command: faulty.command,
          args: faulty.args,
          env: faulty.env,
          // Declared: no start at load, so the crash (and its stderr) comes back as the call's error.
          tools: [{ name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }],
          maxReconnectAttempts: 1,
        },
      };
      const config = { mcp: { servers }, blobs: { dir: blobDir }, recall: { dbPath } };
      const run = await runPiCli({
        extensions: [repoRoot],
        script: [{ toolCall: { name: "everything_echo", arguments: { message: "hello" } } }, { text: "the server is down" }],
        prompt: "echo something",
        env: { HOME: home, PI_GOVERNOR_PRESET: "mcp", PI_GOVERNOR_CONFIG: JSON.stringify(config) },
        timeoutMs: 90_000,
      });
      expect(run.code, `exit code\nstderr:\n${run.stderr}`).toBe(0);

      // The model got the failure with the server's stderr, redacted.
      const result = (run.calls.at(-1)?.messages ?? []).find((m) => m.role === "toolResult" && m.toolName === "everything_echo");
      const seen = JSON.stringify(result?.content);
      expect(seen).toContain("auth: using GITHUB token [redacted:github-token]");
      expect(seen).toContain("credential [redacted:env-value] rejected");
      const everythingTheModelGot = JSON.stringify(run.calls);
      expect(everythingTheModelGot).not.toContain(TOKEN);
      expect(everythingTheModelGot).not.toContain(CREDENTIAL);

      // Nothing written to disk holds them: blob cache, recall index (with its -wal), anything else under HOME.
      expect(existsSync(dbPath)).toBe(true);
      const disk = everyFileUnder(join(home, "cache"));
      expect(disk).toContain("redacted:github-token");
      expect(disk).not.toContain(TOKEN);
      expect(disk).not.toContain(CREDENTIAL);
      expect(everyFileUnder(join(home, ".pi"))).not.toContain(TOKEN);

      // pi-governor search finds the failure by its stderr words, redacted.
      const search = spawnSync(process.execPath, [join(repoRoot, "bin/pi-governor.mjs"), "search", "GITHUB", "token", "--db", dbPath, "--blobs", blobDir], {
        encoding: "utf8",
        env: { ...process.env, HOME: home },
      });
      expect(search.status, search.stderr).toBe(0);
      expect(search.stdout).toContain("everything_echo");
      expect(search.stdout).not.toContain(TOKEN);
      expect(search.stdout).not.toContain(CREDENTIAL);
    } finally {
      faulty.cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});

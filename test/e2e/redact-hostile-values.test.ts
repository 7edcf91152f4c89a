/**
 * Secrets in the shapes an outsider used to get past the rules, in real pi (print mode, lean preset):
 * - realistic values that merely start like a documentation placeholder (digits, a flag word, `test`,
 *   `no-`), in a `.env` read with `read` and an `.npmrc` printed by `bash`;
 * - tokens behind terminal colour codes: `grep --color=always` output (`ESC[01;31mESC[K` right before
 *   the token) and a CI log with `ESC[33m` between `GITHUB_TOKEN=` and the token.
 * None of them reaches the model, the blob cache or the recall index; the placeholders a README uses
 * stay readable.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { everyFileUnder } from "../helpers/files-under.ts";
import { repoRoot, runPiCli, runPiRpc } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";

const tok = (prefix: string, body: string) => [prefix, body].join("_");
const GREP_TOKEN = tok("ghp", "NEWdEfGhIjKlMnOpQrStUvWxYz0123456789");
const LOG_TOKEN = tok("ghp", "LOGdEfGhIjKlMnOpQrStUvWxYz0123456789");
const ESC = "\u001b";
const PLACEHOLDER_SECRETS = ["2024!Secure#Pass-Xq9", "58392017-4a1b-4c2d-9e8f-0123456789ab", "1984-Wq7x-pLm2", "no-way-J0se!Kq81", "Testing-2024-Prod!"];
const SECRETS = [GREP_TOKEN, LOG_TOKEN, ...PLACEHOLDER_SECRETS];

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

describe("pi -p, lean preset: placeholder look-alikes and colour codes", () => {
  it("keeps every secret from the model, the blob cache and the recall index; placeholders stay", async () => {
    const ws = piWorkspace("pigov-hostile-values-");
    work = ws.root;
    const { project, agentDir, home } = ws;
    writeFileSync(
      join(project, ".env"),
      [
        "# production settings",
        `DB_PASSWORD=${PLACEHOLDER_SECRETS[0]}`,
        `NPM_TOKEN=${PLACEHOLDER_SECRETS[1]}`,
        `DATABASE_URL=postgres://admin:${PLACEHOLDER_SECRETS[2]}@db.internal:5432/app`,
        `SESSION_SECRET=${PLACEHOLDER_SECRETS[3]}`,
        `ADMIN_PASSWORD=${PLACEHOLDER_SECRETS[4]}`,
        "EXAMPLE_API_KEY=your-api-key",
        "",
      ].join("\n"),
    );
    writeFileSync(join(project, ".npmrc"), `//registry.npmjs.org/:_authToken=${PLACEHOLDER_SECRETS[1]}\n`);
    writeFileSync(join(project, "config.json"), `{\n  "token": "${GREP_TOKEN}"\n}\n`);
    writeFileSync(join(project, "ci.log"), `${ESC}[36mstep${ESC}[0m export GITHUB_TOKEN=${ESC}[33m${LOG_TOKEN}${ESC}[0m\n`);
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [
        {
          toolCalls: [
            { name: "read", arguments: { path: ".env" } },
            { name: "bash", arguments: { command: "cat .npmrc" } },
            { name: "bash", arguments: { command: "grep --color=always -rnE 'ghp_[A-Za-z0-9]+' config.json" } },
            { name: "read", arguments: { path: "ci.log" } },
          ],
        },
        { text: "done" },
      ],
      prompt: "show the settings",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean" },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    const results = (run.calls.at(-1)?.messages ?? []).filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(4);
    const seen = JSON.stringify(results);
    // The tools ran and their results reached the model, redacted; the README-style placeholder stays.
    expect(seen).toContain("DB_PASSWORD=[redacted:secret-assignment]");
    expect(seen).toContain("EXAMPLE_API_KEY=your-api-key");
    for (const s of PLACEHOLDER_SECRETS) expect(seen.includes(s), `the model saw ${s}`).toBe(false);
    expect(seen).toContain("[redacted:github-token]");
    for (const s of SECRETS) expect(seen.includes(s), `the model saw ${s}`).toBe(false);
    // Nothing on disk either: blobs and the recall index (its SQLite files read as bytes).
    const disk = everyFileUnder(home) + everyFileUnder(agentDir);
    expect(disk, "the outputs were stored (blobs, recall index)").toContain("redacted:github-token");
    for (const s of SECRETS) expect(disk.includes(s), `a file holds ${s}`).toBe(false);
  }, 150_000);

  it("RPC mode: a colour code before a token in a CI log hides nothing from the model or the RPC client", async () => {
    const ws = piWorkspace("pigov-hostile-values-rpc-");
    work = ws.root;
    const { project, agentDir, home } = ws;
    writeFileSync(join(project, "ci.log"), `${ESC}[36mstep${ESC}[0m export GITHUB_TOKEN=${ESC}[33m${LOG_TOKEN}${ESC}[0m\n`);
    const log = join(work, "calls.jsonl");
    const run = await runPiRpc({
      extensions: [repoRoot],
      script: [{ toolCall: { name: "read", arguments: { path: "ci.log" } } }, { text: "done" }],
      prompt: "show the log",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean", PI_GOVERNOR_SCRIPT_LOG: log },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    const sent = readFileSync(log, "utf8");
    expect(sent).toContain("GITHUB_TOKEN=");
    expect(sent).toContain("[redacted:github-token]");
    expect(sent.includes(LOG_TOKEN)).toBe(false);
    // The result the client is shown is the model's (pi 1.x's `structuredContent` of its own `read` goes to
    // scripts and the client as pi made it, never to the model or the session file).
    const ends = run.lines.filter((l) => l.type === "tool_execution_end");
    expect(ends).toHaveLength(1);
    const shown = JSON.stringify((ends[0]!.result as { content?: unknown }).content);
    expect(shown).toContain("[redacted:github-token]");
    expect(shown.includes(LOG_TOKEN)).toBe(false);
  }, 150_000);
});

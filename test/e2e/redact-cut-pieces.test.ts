/**
 * What pi itself cuts or draws over never leaves a readable secret, in real pi (print mode, lean
 * preset: blobs and recall on): pi's `grep` cuts a line at 500 characters right inside a GitHub token
 * (`... [truncated]` after 35 of its 36 characters; grep saves no whole output); a man page draws a
 * token in bold (`g\bgh\bh…`) and underlined (`_\bg_\bh…`), which a terminal shows as the token; an
 * 8-bit CSI (U+009B) colours one. Neither the model, the blob cache nor the recall index gets a
 * readable piece of a token.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot, runPiCli, type ScriptStep } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";

// Built at run time: no whole secret in the repository's source.
const TOKEN = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
/** Every `n`-character piece of `secret`. */
const pieces = (secret: string, n: number) => Array.from({ length: secret.length - n + 1 }, (_, i) => secret.slice(i, i + n));

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

/** What a terminal shows of a text: each character before a backspace struck over. */
const struck = (text: string) => {
  let out = "";
  for (const c of text) out = c === "\b" ? out.slice(0, -1) : out + c;
  return out;
};

/** Every file under `dir`, as text (a SQLite file too: its ASCII is what matters). */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) out.push(...filesUnder(p));
    else if (s.isFile()) out.push({ path: p, text: readFileSync(p, "latin1") });
  }
  return out;
}

/** Runs pi once in print mode with the lean preset; the text of the tool results the model got and the files pi-governor wrote. */
async function run(
  files: Record<string, string>,
  script: ScriptStep[],
  args: string[] = [],
): Promise<{ seen: string; written: Array<{ path: string; text: string }> }> {
  const ws = piWorkspace("pigov-cut-pieces-");
  work = ws.root;
  const { project, agentDir, home } = ws;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  const result = await runPiCli({
    extensions: [repoRoot],
    script,
    prompt: "go",
    cwd: project,
    args,
    env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: "lean" },
    timeoutMs: 120_000,
  });
  expect(result.code, result.stderr.slice(0, 2000)).toBe(0);
  const results = (result.calls.at(-1)?.messages ?? []).filter((m) => m.role === "toolResult");
  expect(results.length).toBeGreaterThan(0);
  const seen = results.map((m) => (JSON.parse(JSON.stringify(m.content)) as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n")).join("\n");
  return { seen, written: filesUnder(join(agentDir, "cache")) };
}

describe("pi's grep cut and overstrikes: no readable piece of a secret", () => {
  it("grep cuts a line at 500 characters inside a token: model, blob cache and recall index", async () => {
    // 456 `x`, ` key=`, the token: pi keeps 500 characters, 35 of the token's 36 after `ghp_`.
    const line = `${"x".repeat(456)} key=${TOKEN} tail\n`;
    const { seen, written } = await run(
      { "long.txt": line },
      [{ toolCall: { name: "grep", arguments: { pattern: "key=", path: "." } } }, { text: "done" }],
      ["--tools", "read,bash,grep"],
    );
    expect(seen, "pi cut the line").toContain("... [truncated]");
    expect(seen).toContain("key=[redacted:github-token]... [truncated]");
    for (const p of pieces(TOKEN, 8)) expect(seen.includes(p), `the model saw ${p}`).toBe(false);
    expect(written.length, "the blob cache and the recall index were written").toBeGreaterThan(0);
    for (const f of written) for (const p of pieces(TOKEN, 12)) expect(f.text.includes(p), `${f.path} holds ${p}`).toBe(false);
  }, 150_000);

  it("a man page's bold and underlined token and an 8-bit CSI before one, through bash and read", async () => {
    const bold = [...TOKEN].map((c) => `${c}\b${c}`).join("");
    const underlined = [...TOKEN].map((c) => `_\b${c}`).join("");
    const c1 = TOKEN.replace("AbCd", "C1Cd");
    const { seen, written } = await run({ "man.txt": `bold: ${bold}\nu: ${underlined}\n`, "c1.txt": `c1 \u009b33m${c1}\u009b0m\n` }, [
      {
        toolCalls: [
          { name: "bash", arguments: { command: "cat man.txt c1.txt" } },
          { name: "read", arguments: { path: "man.txt" } },
        ],
      },
      { text: "done" },
    ]);
    expect(seen).toContain("[redacted:github-token]");
    const shown = struck(seen);
    for (const secret of [TOKEN, c1]) for (const p of pieces(secret, 8)) expect(shown.includes(p), `the model saw ${p}`).toBe(false);
    expect(written.length).toBeGreaterThan(0);
    for (const f of written) {
      const text = struck(f.text);
      for (const secret of [TOKEN, c1]) for (const p of pieces(secret, 12)) expect(text.includes(p), `${f.path} holds ${p}`).toBe(false);
    }
  }, 150_000);
});

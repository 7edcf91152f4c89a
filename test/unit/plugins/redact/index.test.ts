import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { TOOL_STAGE, contentText, definePlugin, definePreset, textContent, type Governor, type ToolObservation, type ToolResultValue } from "pi-governor";
import { createGovernor, type ConfigLayer } from "pi-governor/host";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { recall } from "../../../../plugins/recall/index.ts";
import { REDACTOR, redact } from "../../../../plugins/redact/index.ts";
import { oneToolPlugin } from "pi-governor/testing";

// Built at run time: no whole token in the repository.
const TOKEN = ["ghp", "_", "R3dactMe".repeat(4), "Zq9x"].join("");
const fts = probeSqlite().fts5;

/** Every file under `dir` (recursively) as text. */
function filesUnder(dir: string): string {
  let out = "";
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out += readFileSync(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name), "latin1");
  return out;
}

describe("redact plugin", () => {
  let dir: string;
  let gov: Governor | undefined;
  afterEach(async () => {
    await gov?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
    gov = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** redact + blobs + recall on a temp dir, plus a governed `leak` tool answering `answer` and an observer outside redact. */
  async function build(layers: ConfigLayer[] = [], answer = `token ${TOKEN} end`, thresholdBytes = 2_048) {
    dir = mkdtempSync(join(tmpdir(), "pigov-redact-"));
    const seen: ToolObservation[] = [];
    const leak = oneToolPlugin(
      { name: "leak", description: "answers with a token", execute: async () => ({ content: textContent(answer) }) },
      { name: "test:leak", configKey: "leak", description: "" },
    );
    const observer = definePlugin({
      name: "test:observer",
      configKey: "observer",
      description: "records what an outer wrapper (like the execution log or telemetry) sees",
      schema: z.object({}),
      defaults: {},
      apply(pipeline) {
        pipeline.hooks.toolCall.tap({ name: "test:observer", stage: TOOL_STAGE.OBSERVE - 20 }, (next) => async (call) => {
          const obs = await next(call);
          seen.push(obs);
          return obs;
        });
      },
    });
    const preset = definePreset({
      name: "redact-test",
      description: "",
      plugins: () => [redact(), blobs({ builtinTools: ["bash", "read"] }), recall(), leak(), observer()],
    });
    gov = await createGovernor({
      preset,
      cwd: dir,
      agentDir: dir,
      env: {},
      layers,
      overrides: { blobs: { dir: join(dir, "blobs"), thresholdBytes }, recall: { dbPath: join(dir, "recall.db") } },
    });
    gov.attachSession("s", { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false });
    await gov.pipeline.hooks.sessionStart.run({ sessionId: "s", cwd: dir, reason: "startup" });
    const result = (value: Partial<ToolResultValue> & { text: string }) =>
      gov!.pipeline.hooks.toolResult.run(
        {
          toolName: value.toolName ?? "bash",
          toolCallId: value.toolCallId ?? "c1",
          input: value.input ?? {},
          content: [{ type: "text", text: value.text }],
          details: value.details,
          isError: false,
        },
        { tool: gov!.pipeline.tools.get(value.toolName ?? "bash")?.info, sessionId: "s" },
      );
    return { gov, seen, result };
  }

  it.skipIf(!fts)("hides a token in pi's bash output from the model, the blob cache and the recall index", async () => {
    const { gov, result } = await build();
    // Once in the head (the excerpt the model sees), once in the middle (only in the stored whole).
    const text = `login with ${TOKEN}\n${"build log line\n".repeat(300)}export GITHUB_TOKEN=${TOKEN}\n${"more output\n".repeat(100)}`;
    const out = await result({ text, input: { command: `curl -H 'Authorization: Bearer ${TOKEN}' https://api.github.com` } });
    // (The call's input is the model's own text; pi does not take a changed input from tool_result.)
    expect(JSON.stringify([out.content, out.details])).not.toContain(TOKEN);
    expect(out.details?.truncated).toBe(true);
    // The search flushes the index; the answer and every file written must be free of the token.
    const answer = contentText((await gov.pipeline.callTool("context_search", { query: "export GITHUB_TOKEN redacted" })).content);
    expect(answer).toContain("redacted");
    expect(answer).not.toContain(TOKEN);
    const disk = filesUnder(dir);
    expect(disk).toContain("[redacted:");
    expect(disk).not.toContain(TOKEN);
  });

  it("stores pi's full bash output file redacted", async () => {
    const { result } = await build();
    // Where pi writes it: directly in the OS temp dir, `pi-bash-<random>.log` (the only place the blobs plugin reads it from).
    const full = join(tmpdir(), `pi-bash-${randomBytes(8).toString("hex")}.log`);
    writeFileSync(full, `${"x\n".repeat(5_000)}NPM_TOKEN=${TOKEN}\n`, { mode: 0o600 });
    try {
      const out = await result({ text: `${"x\n".repeat(2_000)}(cut by pi)`, details: { fullOutputPath: full, truncation: {} } });
      expect(out.details?.truncated).toBe(true);
      const stored = readFileSync(String(out.details?.blobPath ?? (out.details as { blob?: { path?: string } })?.blob?.path ?? findBlob(dir)), "utf8");
      // the stored copy is pi's whole output (the token line is only in the file), redacted
      expect(stored).toBe(`${"x\n".repeat(5_000)}NPM_TOKEN=[redacted:github-token]\n`);
      expect(filesUnder(join(dir, "blobs"))).not.toContain(TOKEN);
    } finally {
      rmSync(full, { force: true });
    }
  });

  it.skipIf(!fts)("stores pi's full output redacted in the recall index and the blob cache when blobs' threshold is raised", async () => {
    // The blobs plugin does not cut the result (threshold 1 MB), so recall stores pi's full-output
    // file itself: the secrets in it (only in the file, not in pi's cut text) must not reach either.
    const { gov, result } = await build([], undefined, 1_048_576);
    const full = join(tmpdir(), `pi-bash-${randomBytes(8).toString("hex")}.log`);
    const aws = ["AKIA", "Z9", "QWERTYUIOPASDF"].join("");
    const nested = JSON.stringify({ out: JSON.stringify({ AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzKEYzz0123" }) });
    writeFileSync(full, `${"build line\n".repeat(3_000)}GH_TOKEN=${TOKEN}\nid ${aws}\n${nested}\nfinished marker\n`, { mode: 0o600 });
    try {
      const out = await result({ text: `${"build line\n".repeat(100)}(cut by pi)`, details: { fullOutputPath: full, truncation: {} } });
      expect(out.details?.truncated).toBeUndefined();
      const answer = contentText((await gov.pipeline.callTool("context_search", { query: "finished marker" })).content);
      expect(answer).toContain("finished");
      for (const secret of [TOKEN, aws, "wJalrXUtnFEMI"]) {
        expect(answer).not.toContain(secret);
        expect(filesUnder(dir), secret).not.toContain(secret);
      }
    } finally {
      rmSync(full, { force: true });
    }
  });

  it("redacts a governed call's observation for the observers outside it (execution log, telemetry)", async () => {
    const { gov, seen } = await build();
    const obs = await gov.pipeline.callTool("leak", {});
    expect(contentText(obs.content)).toBe("token [redacted:github-token] end");
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
    expect(seen).toHaveLength(1);
  });

  it("a project's shape that starts before a token or a server's env value leaves it hidden whole", async () => {
    const credential = ["Zq8v", "K2mP9x", "L4nR7tW1yB"].join("");
    const shapes = [
      { name: "p", prefix: '"Z', chars: "A-Za-z", minLength: 1, maxLength: 64 },
      { name: "q", prefix: "=g", chars: "a-z", minLength: 1, maxLength: 64 },
    ];
    const project: ConfigLayer = { kind: "project", source: "/repo/.pi/pi-governor.json", data: { redact: { projectPatterns: shapes } } };
    const { gov, result } = await build([project]);
    gov.services.need(REDACTOR).addLiterals([credential]);
    const out = contentText((await result({ text: `cred: "${credential}"\nexport GH=${TOKEN}\n` })).content);
    expect(out).toBe('cred: "[redacted:env-value]"\nexport GH=[redacted:github-token]\n');
  });

  it("a project file may add shapes but not turn redaction off or leave rules out; the global file may", async () => {
    const acme = `acme_${"a1b2c3d4".repeat(4)}`;
    const shape = { name: "acme-token", prefix: "acme_", chars: "a-z0-9", minLength: 32, maxLength: 32 };
    const project: ConfigLayer = {
      kind: "project",
      source: "/repo/.pi/pi-governor.json",
      data: { redact: { enabled: false, disabledRules: ["github-token"], patterns: [], projectPatterns: [shape] } },
    };
    const { gov, result } = await build([project]);
    expect(gov.problems().join("\n")).toMatch(/redact\.enabled/);
    const out = await result({ toolName: "read", text: `${TOKEN} and ${acme}` });
    expect(contentText(out.content)).toBe("[redacted:github-token] and [redacted:acme-token]");
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
    rmSync(dir, { recursive: true, force: true });

    const global: ConfigLayer = { kind: "global", source: "~/.pi/agent/pi-governor.json", data: { redact: { enabled: false } } };
    const off = await build([global]);
    const kept = await off.result({ toolName: "read", text: `${TOKEN}` });
    expect(contentText(kept.content)).toBe(TOKEN);
  });
});

function findBlob(dir: string): string {
  const blobDir = join(dir, "blobs");
  const f = readdirSync(blobDir).find((n) => n.endsWith(".txt"));
  return join(blobDir, f!);
}

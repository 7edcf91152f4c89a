/**
 * What the default preset adds to every request pi sends, measured on what pi actually sends (the
 * faux provider's context: the system prompt, pi's system messages and the tool declarations), as
 * the difference between a pi session with the kota extension and one without it, with pi's own
 * tools in both. A size, not a timing: it is paid on every request of every session.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { repoRoot } from "../helpers/pi-host.ts";
import { assertNoLiveChildren, type KotaE2e, startKotaSession } from "../helpers/kota-e2e.ts";
import { type PiRequestPreamble, type PiTestSession, startPiSession } from "../helpers/pi-session.ts";

/** Characters the default preset may add to every request (system prompt lines plus tool schemas). */
const FIXED_OVERHEAD_BOUND = 5_000;

let e2e: KotaE2e | undefined;
let plain: PiTestSession | undefined;
afterEach(async () => {
  await e2e?.dispose();
  await plain?.dispose();
  e2e = plain = undefined;
  assertNoLiveChildren();
});

const toolChars = (t: PiRequestPreamble["tools"][number]) => JSON.stringify(t).length;
const promptChars = (p: PiRequestPreamble) => p.systemPrompt.length + p.systemMessages.reduce((s, m) => s + m.length, 0);

describe("kota e2e: fixed per-request overhead", () => {
  it(`the default preset adds at most ${FIXED_OVERHEAD_BOUND.toLocaleString("en-US")} chars (system prompt + tool schemas) to every request`, async (ctx) => {
    skipWithoutSqlite(ctx);
    e2e = await startKotaSession({ responses: [fauxAssistantMessage([fauxText("hi")])], defaultSystemPrompt: true });
    await e2e.pi.session.prompt("hello");
    // The same folder: pi's prompt names the working directory.
    plain = await startPiSession({ extensions: [], responses: [fauxAssistantMessage([fauxText("hi")])], defaultSystemPrompt: true, cwd: e2e.pi.cwd });
    await plain.session.prompt("hello");
    const base = plain.preambles[0]!;
    const kota = e2e.pi.preambles[0]!;
    const builtin = new Set(base.tools.map((t) => t.name));
    const added = kota.tools.filter((t) => !builtin.has(t.name));
    const prompt = promptChars(kota) - promptChars(base);
    const tools = added.reduce((s, t) => s + toolChars(t), 0);
    const perTool = added.map((t) => `${t.name} ${toolChars(t)}`).join(", ");
    // What the model needs to choose a tool: every tool of the preset is declared with a description.
    for (const name of [
      "kota_search",
      "kota_deps",
      "kota_usages",
      "kota_impact",
      "kota_task_context",
      "kota_index",
      "kota_status",
      "blob_read",
      "context_fold",
      "context_search",
    ]) {
      const tool = kota.tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.description.length, name).toBeGreaterThan(30);
    }
    expect(prompt + tools, `system prompt +${prompt}, tools: ${perTool}`).toBeLessThanOrEqual(FIXED_OVERHEAD_BOUND);
    // /governor status prints the same numbers, per tool, from the tool definitions.
    await e2e.pi.session.prompt("/governor status");
    const status = e2e.pi.ui.notifications.map((n) => n.message).find((m) => m.includes("Fixed per-request overhead"));
    const n = (v: number) => v.toLocaleString("en-US");
    expect(status).toContain(`Fixed per-request overhead: ${n(prompt + tools)} chars (system prompt ${n(prompt)} + tool schemas ${n(tools)})`);
    for (const t of added) expect(status).toMatch(new RegExp(`\\b${t.name} [\\d,]+`));
    // plugins/prune/README.md quotes these figures for the current pi (the devDependency this pass runs):
    // "-> <total> chars (system prompt <before> -> <prompt>, tool schemas <before> -> <tools>)".
    if (!process.env.PI_GOVERNOR_PI_HOME) {
      const readme = readFileSync(join(repoRoot, "plugins/prune/README.md"), "utf8");
      expect(readme).toMatch(new RegExp(`-> ${n(prompt + tools)} chars \\(system\\s+prompt [\\d,]+ -> ${n(prompt)}, tool schemas [\\d,]+ -> ${n(tools)}\\)`));
    }
  }, 60_000);
});

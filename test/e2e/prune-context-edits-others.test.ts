/**
 * Another extension's context edits stay in force under pruning's own (pi 0.87 and later). A real
 * second extension (test/fixtures/secret-scrubber.ts) scrubs `db_password=…` out of a tool result and
 * out of a long `write` call's arguments with pi `context_edit` entries; pruning then writes its own
 * edits on top of those (a placeholder, cut arguments). pi-governor gives the pruner the content in
 * force under its own edits, which is the scrubbed one: the secret must never reach a model request,
 *
 * - after a resume with a project file that sets `prune.perModel` to send this model everything
 *   (the pruner then passes on what it was given),
 * - after a resume with the defaults (a new pruner renders the cut arguments again from what it is given),
 * - with a sweeping scrubber whose edits land on top of pruning's (ours, theirs, ours).
 *
 * SDK with the faux provider, and the CLI in print mode with the scripted provider.
 */
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import type { FauxResponseStep } from "@mariozechner/pi-ai";
import * as piSdk from "@mariozechner/pi-coding-agent";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { createExtension } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { prune } from "../../plugins/prune/index.ts";
import secretScrubber from "../fixtures/secret-scrubber.ts";
import { repoRoot, runPiCli, type ScriptStep } from "../helpers/pi-cli.ts";
import { piTestScope } from "../helpers/pi-session.ts";

/** pi applies context edits to the model context (0.87+): capability, as the adapter detects it. */
const editsCapable = typeof (piSdk.SessionManager.prototype as unknown as { buildSessionProjection?: unknown }).buildSessionProjection === "function";

const SECRET = "hunter2";
const EVERY_TURN = { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false, keepRecentTurns: 1 };
/** A long write whose arguments start with a secret: pruning cuts them, keeping their first 160 characters. */
const WRITE_CONTENT = `db_password=${SECRET}-in-arguments\n${"export const generated = 42;\n".repeat(60)}`;

function workspace(dir: string): void {
  writeFileSync(join(dir, "secret.env"), `HOST=db.internal\ndb_password=${SECRET}-in-result\n${"# padding line\n".repeat(40)}`);
  for (let i = 2; i <= 6; i++) writeFileSync(join(dir, `m${i}.ts`), `// module ${i}\n${"export const x = 1;\n".repeat(80)}`);
}

type Call = { name: string; arguments: Record<string, unknown> };
/** Five prompts: read the secret, read, write the long file with the secret, read, read; each ends with a text reply. */
const CALLS: Call[] = [
  { name: "read", arguments: { path: "secret.env" } },
  { name: "read", arguments: { path: "m2.ts" } },
  { name: "write", arguments: { path: "out.env", content: WRITE_CONTENT } },
  { name: "read", arguments: { path: "m4.ts" } },
  { name: "read", arguments: { path: "m5.ts" } },
];
const PROMPTS = CALLS.length;

const fauxSteps = (): FauxResponseStep[] =>
  CALLS.flatMap((c, i) => [
    piAi.fauxAssistantMessage([piAi.fauxToolCall(c.name, c.arguments, { id: `call_${i + 1}` })], { stopReason: "toolUse" }),
    piAi.fauxAssistantMessage([piAi.fauxText(`prompt ${i + 1} done.`)]),
  ]);

/** Every request that carried the secret, by index. */
const leaks = (contexts: unknown[][]) => contexts.flatMap((c, i) => (JSON.stringify(c).includes(SECRET) ? [i] : []));

interface FileEntry {
  type: string;
  id: string;
  targetId?: string;
  replacement?: { content: unknown } | null;
  message?: { role: string; toolCallId?: string; content?: unknown };
}
const fileEntries = (file: string): FileEntry[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as FileEntry);

/** The edits of the entry `match` finds, oldest first: "ours" (a placeholder or cut arguments) or "theirs" (the scrubber's). */
function editOrder(file: string, match: (e: FileEntry) => boolean): string[] {
  const entries = fileEntries(file);
  const target = entries.find((e) => e.type === "message" && match(e));
  if (!target) return [];
  return entries
    .filter((e) => e.type === "context_edit" && e.targetId === target.id)
    .map((e) => (/\(Pruned\) |\[pruned: /.test(JSON.stringify(e.replacement)) ? "ours" : "theirs"));
}
const secretResult = (e: FileEntry) => e.message?.role === "toolResult" && e.message.toolCallId === "call_1";
const secretWrite = (e: FileEntry) => e.message?.role === "assistant" && JSON.stringify(e.message.content).includes("out.env");

describe.skipIf(!editsCapable)("(needs pi 0.87+ context edits) another extension's edits under pruning's, in the SDK", () => {
  const scope = piTestScope();
  let sweep: string | undefined;
  afterEach(() => {
    if (sweep === undefined) delete process.env.PI_GOVERNOR_SCRUB_SWEEP;
    else process.env.PI_GOVERNOR_SCRUB_SWEEP = sweep;
  });

  const governed = (cwd: string, pruneConfig: Record<string, unknown>): ExtensionFactory => {
    const preset = definePreset({ name: "e2e-edits-others", description: "", plugins: () => [prune()] });
    return createExtension(preset, {
      governorOptions: { layers: [{ kind: "project" as const, source: ".pi/pi-governor.json", data: { prune: pruneConfig } }], cwd },
    });
  };

  const firstSession = async (cwd: string) => {
    const pi = await scope.start({
      persist: true,
      cwd,
      tools: ["read", "write"],
      extensions: [secretScrubber as ExtensionFactory, governed(cwd, EVERY_TURN)],
      responses: fauxSteps(),
    });
    for (let p = 1; p <= PROMPTS; p++) await pi.session.prompt(`work ${p}`);
    return { pi, file: pi.session.sessionManager.getSessionFile()! };
  };

  const resumed = async (cwd: string, file: string, pruneConfig: Record<string, unknown>) => {
    const pi = await scope.start({
      persist: true,
      cwd,
      sessionFile: file,
      tools: ["read", "write"],
      extensions: [secretScrubber as ExtensionFactory, governed(cwd, pruneConfig)],
      responses: [
        piAi.fauxAssistantMessage([piAi.fauxToolCall("read", { path: "m6.ts" }, { id: "call_6" })], { stopReason: "toolUse" }),
        piAi.fauxAssistantMessage([piAi.fauxText("resumed.")]),
      ],
    });
    await pi.session.prompt("go on");
    return pi;
  };

  it("theirs then ours: the scrubbed result and arguments stay scrubbed, after a resume with perModel sending everything and with the defaults", async () => {
    const cwd = scope.tempDir("pigov-edits-others-");
    workspace(cwd);
    const first = await firstSession(cwd);
    expect(first.pi.contexts.length).toBe(2 * PROMPTS);
    // The scrubber edited first; pruning's edit came on top of it.
    expect(editOrder(first.file, secretResult)).toEqual(["theirs", "ours"]);
    expect(editOrder(first.file, secretWrite)).toEqual(["theirs", "ours"]);
    expect(leaks(first.pi.contexts)).toEqual([]);
    // A project file that sends this model the whole history: the pruner passes on what it is given.
    const everything = await resumed(cwd, first.file, { ...EVERY_TURN, perModel: { "faux/*": { enabled: false } } });
    expect(everything.contexts.length).toBe(2);
    expect(JSON.stringify(everything.contexts[0]).includes("db_password=[scrubbed]"), "the scrubbed result is sent").toBe(true);
    expect(leaks(everything.contexts)).toEqual([]);
  }, 120_000);

  it("theirs then ours, resumed with the defaults: cut arguments are rendered again from the scrubbed call", async () => {
    const cwd = scope.tempDir("pigov-edits-others-");
    workspace(cwd);
    const first = await firstSession(cwd);
    const again = await resumed(cwd, first.file, EVERY_TURN);
    expect(again.contexts.length).toBe(2);
    expect(leaks(again.contexts)).toEqual([]);
  }, 120_000);

  it("ours, theirs, ours (a sweeping scrubber): the content in force under pruning's edits is the scrubbed one", async () => {
    sweep = process.env.PI_GOVERNOR_SCRUB_SWEEP;
    process.env.PI_GOVERNOR_SCRUB_SWEEP = "1";
    const cwd = scope.tempDir("pigov-edits-others-");
    workspace(cwd);
    const first = await firstSession(cwd);
    const order = editOrder(first.file, secretResult);
    expect(order.slice(0, 4)).toEqual(["theirs", "ours", "theirs", "ours"]);
    expect(leaks(first.pi.contexts)).toEqual([]);
    const everything = await resumed(cwd, first.file, { ...EVERY_TURN, perModel: { "faux/*": { enabled: false } } });
    expect(leaks(everything.contexts)).toEqual([]);
  }, 120_000);
});

describe.skipIf(!editsCapable)("(needs pi 0.87+ context edits) another extension's edits under pruning's, in print mode", () => {
  const scope = piTestScope();

  it("a project file's prune.perModel after a resume never sends the scrubbed secret", async () => {
    const cwd = scope.tempDir("pigov-edits-others-cli-");
    workspace(cwd);
    mkdirSync(join(cwd, ".pi"), { recursive: true });
    const projectFile = join(cwd, ".pi", "pi-governor.json");
    const file = join(scope.tempDir("pigov-edits-others-session-"), "session.jsonl");
    const env = { PI_GOVERNOR_PRESET: "lean" };
    const extensions = [join(repoRoot, "test/fixtures/secret-scrubber.ts"), repoRoot];
    const script: ScriptStep[] = CALLS.flatMap((c, i) => [{ toolCall: c }, { text: `prompt ${i + 1} done.` }]);
    writeFileSync(projectFile, JSON.stringify({ prune: EVERY_TURN }));
    const first = await runPiCli({ extensions, script, prompt: CALLS.map((_, i) => `work ${i + 1}`), cwd, env, sessionFile: file, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(first.calls.length).toBe(2 * PROMPTS);
    expect(editOrder(file, (e) => e.message?.role === "toolResult" && JSON.stringify(e.message.content).includes("db.internal"))).toEqual(["theirs", "ours"]);
    expect(leaks(first.calls.map((c) => c.messages))).toEqual([]);

    // The repository's file now asks to send this model everything (scripted/*: pi's name for it).
    writeFileSync(projectFile, JSON.stringify({ prune: { ...EVERY_TURN, perModel: { "scripted/*": { enabled: false } } } }));
    const second = await runPiCli({
      extensions,
      script: [{ toolCall: { name: "read", arguments: { path: "m6.ts" } } }, { text: "resumed." }],
      prompt: "go on",
      cwd,
      env,
      sessionFile: file,
      timeoutMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.calls.length).toBe(2);
    expect(JSON.stringify(second.calls[0]!.messages).includes("db_password=[scrubbed]"), "the scrubbed result is sent").toBe(true);
    expect(leaks(second.calls.map((c) => c.messages))).toEqual([]);
  }, 240_000);
});

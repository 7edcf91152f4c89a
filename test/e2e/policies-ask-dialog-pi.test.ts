/**
 * The `ask` dialog in the real pi's RPC mode (the client answers pi's `extension_ui_request` lines):
 * a command padded so its tail falls past what a dialog shows never runs on a yes to its head; it
 * runs after the client opened the whole call (pi's editor dialog, prefilled with every byte) and
 * then confirmed; invisible and look-alike characters reach the client as escapes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, type RpcLine, runPiRpc } from "../helpers/pi-cli.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-ask-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(project, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies: { rules: [{ tools: "bash", action: "ask" }] } }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined });
/** `npm run lint`, output to push the rest out of a dialog, then the part a cut dialog would hide. */
const padded = `npm run lint && echo ${"lint-output-".repeat(200)}; touch HIDDEN`;
const dialogs = (lines: RpcLine[]) =>
  lines.filter((l) => l.type === "extension_ui_request" && ["confirm", "select", "editor", "input"].includes(String(l.method)));

async function ask(command: string, client: { confirm: boolean; uiAnswer?: (request: RpcLine) => Record<string, unknown> | undefined }) {
  return runPiRpc({
    extensions: [repoRoot],
    script: [{ toolCall: { name: "bash", arguments: { command } } }, { text: "ok" }],
    prompt: "lint it",
    cwd: project,
    env: env(),
    confirmAnswer: client.confirm,
    ...(client.uiAnswer ? { uiAnswer: client.uiAnswer } : {}),
  });
}

describe("the ask dialog never hides a byte of what will run (RPC mode)", () => {
  it("a client that says yes to every confirm and opens nothing: the padded command does not run", async () => {
    const run = await ask(padded, { confirm: true, uiAnswer: (r) => (r.method === "notify" || r.method === "setStatus" ? undefined : { cancelled: true }) });
    expect(existsSync(join(project, "HIDDEN"))).toBe(false);
    // Whatever the client was shown before it could say yes named the hidden part's length.
    const first = dialogs(run.lines)[0]!;
    expect(`${first.title ?? ""}\n${first.message ?? ""}`).toMatch(/\d+ characters .*not shown/);
  }, 90_000);

  it("a client that opens the whole call (editor) and then confirms: it was shown every byte, and the call runs", async () => {
    const run = await ask(padded, {
      confirm: true,
      uiAnswer: (r) => {
        if (r.method === "select") return { value: (r.options as string[]).find((o) => o.startsWith("Show the whole call")) };
        if (r.method === "editor") return { value: r.prefill };
        return undefined;
      },
    });
    const shown = dialogs(run.lines);
    expect(shown.map((d) => d.method)).toEqual(["select", "editor", "confirm"]);
    expect(String(shown[1]!.prefill)).toContain(`"command": "${padded}"`);
    expect(existsSync(join(project, "HIDDEN"))).toBe(true);
  }, 90_000);

  it("the issue's padding (400 spaces before `; touch HIDDEN`) is shown whole, the spaces counted", async () => {
    const run = await ask(`npm run lint${" ".repeat(400)}; touch HIDDEN`, { confirm: false });
    const [confirm] = dialogs(run.lines);
    expect(confirm!.method).toBe("confirm");
    expect(String(confirm!.message)).toContain('"command": "npm run lint[400 spaces]; touch HIDDEN"');
    expect(existsSync(join(project, "HIDDEN"))).toBe(false);
  }, 90_000);

  it("U+200B, a right-to-left override and a Cyrillic letter in a hostname reach the client as escapes", async () => {
    const run = await ask("curl -s https://gіthub.com/install\u200b.sh\u202e | true", { confirm: false });
    const [confirm] = dialogs(run.lines);
    expect(confirm!.method).toBe("confirm");
    expect(String(confirm!.message)).toContain("https://g\\u0456thub.com/install\\u200b.sh\\u202e");
    expect(String(confirm!.message)).not.toMatch(/[\u200b\u202e\u0456]/);
  }, 90_000);

  it("Roman numerals, Coptic and Lisu letters, ignorable and unassigned code points, Hangul jamo and an overlay stroke reach the client as escapes", async () => {
    const hostile = "curl gⅰthub.com/ⅽorp gⲟⲟgle.com ꓲd x\u{e0080}\u{e0081}\ufff0y a\u11a8\u11a9b r\u0336m e\u0301 | true";
    const run = await ask(hostile, { confirm: false });
    const [confirm] = dialogs(run.lines);
    expect(confirm!.method).toBe("confirm");
    const message = String(confirm!.message);
    for (const shownAs of [
      "g\\u2170thub",
      "\\u217dorp",
      "g\\u2c9f\\u2c9fgle",
      "\\ua4f2d",
      "x\\udb40\\udc80\\udb40\\udc81\\ufff0y",
      "a\\u11a8\\u11a9b",
      "r\\u0336m",
      "e\\u0301",
    ]) {
      expect(message).toContain(shownAs);
    }
    for (const raw of ["\u2170", "\u217d", "\u2c9f", "\ua4f2", "\ufff0", "\u11a8", "\u11a9", "\u0336", "\u0301", "\u{e0080}"])
      expect(message).not.toContain(raw);
    expect(existsSync(join(project, "HIDDEN"))).toBe(false);
  }, 90_000);
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { fold } from "../../plugins/fold/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { governorPolicy, noPruning } from "../../cli/replay/policies.ts";
import { readSessionFile } from "../../cli/replay/session-file.ts";
import { simulate } from "../../cli/replay/simulate.ts";
import { messagesChars } from "../../plugins/prune/size.ts";
import { type PiTestScope, piTestScope, type PiTestSession, storedMessages } from "../helpers/pi-session.ts";

const TURNS = 32;
const FILE_CHARS = 12_000;

/** A cwd with one large source file per turn. */
function workspace(cwd: string): string {
  for (let t = 1; t <= TURNS; t++) {
    const lines: string[] = [];
    for (let i = 0; lines.join("\n").length < FILE_CHARS; i++) lines.push(`export const value${t}_${i} = compute(${t}, ${i}); // module ${t}`);
    writeFileSync(join(cwd, `module${t}.ts`), lines.join("\n"));
  }
  return cwd;
}

/** Per turn: the model reads that turn's file with pi's built-in `read`, then answers. */
function script(): FauxResponseStep[] {
  const steps: FauxResponseStep[] = [];
  for (let t = 1; t <= TURNS; t++) {
    steps.push(fauxAssistantMessage([fauxText(`Reading module ${t}.`), fauxToolCall("read", { path: `module${t}.ts` })], { stopReason: "toolUse" }));
    steps.push(fauxAssistantMessage([fauxText(`Module ${t} computes values; nothing else to note.`)]));
  }
  return steps;
}

/** Characters of every context the model was sent, one per model call. */
async function promptSizes(scope: PiTestScope, withPruning: boolean, cwd: string): Promise<{ sizes: number[]; pi: PiTestSession }> {
  // The fold plugin too: the replay below runs both, as the presets do.
  const preset = definePreset({ name: "e2e-prune", description: "", plugins: () => [fold(), prune()] });
  const extensions = withPruning ? [createExtension(preset, { governorOptions: { layers: [] } })] : [];
  const pi = await scope.start({ extensions, responses: script(), cwd, tools: ["read"], persist: true });
  for (let t = 1; t <= TURNS; t++) await pi.session.prompt(`What does module${t}.ts do?`);
  return { sizes: pi.contexts.map((c) => messagesChars(c as AgentMessageLike[])), pi };
}

describe("prune with the real pi SDK", () => {
  const scope = piTestScope();

  it("a 32-turn session's prompt stays flat with pruning while the unpruned prompt keeps growing", async () => {
    const cwd = workspace(scope.tempDir("pigov-prune-e2e-"));
    const plain = await promptSizes(scope, false, cwd);
    const pruned = await promptSizes(scope, true, cwd);
    if (process.env.PRUNE_E2E_DEBUG) process.stderr.write(`${plain.sizes.join(",")}\n${pruned.sizes.join(",")}\n`);
    expect(plain.sizes).toHaveLength(TURNS * 2);
    expect(pruned.sizes).toHaveLength(TURNS * 2);

    // Without pruning the prompt grows by about one file per turn.
    const plainLast = plain.sizes.at(-1)!;
    expect(plainLast).toBeGreaterThan(TURNS * FILE_CHARS * 0.9);
    // With pruning it stays within a few files, from the first third of the session to the end.
    const maxPruned = Math.max(...pruned.sizes);
    expect(maxPruned).toBeLessThan(8 * FILE_CHARS);
    const firstThird = Math.max(...pruned.sizes.slice(0, (TURNS * 2) / 3));
    const lastThird = Math.max(...pruned.sizes.slice((-TURNS * 2) / 3));
    expect(lastThird).toBeLessThan(firstThird * 1.6);
    expect(plainLast / pruned.sizes.at(-1)!).toBeGreaterThan(4);

    // The session itself keeps the full history: pruning is request-only.
    const stored = storedMessages(pruned.pi.session).filter((m) => m.role === "toolResult");
    expect(stored).toHaveLength(TURNS);
    for (const r of stored) expect(JSON.stringify(r.content)).not.toContain("(Pruned)");
    // What the model saw last: old reads are placeholders that say how to read them again.
    const last = pruned.pi.contexts.at(-1) as AgentMessageLike[];
    const placeholder = last.find((m) => m.role === "toolResult" && JSON.stringify(m.content).includes("(Pruned)"));
    expect(JSON.stringify(placeholder?.content)).toMatch(/read\(path=\\"module\d+\.ts\\"\)/);

    // The replay of the session file pi wrote reproduces, call by call, what the model was sent.
    const file = pruned.pi.session.sessionManager.getSessionFile()!;
    const recorded = readSessionFile(file);
    expect(recorded.problems).toEqual([]);
    expect(recorded.requests).toHaveLength(TURNS * 2);
    const replayed = await simulate(recorded.requests, governorPolicy(), { systemTokens: 0 });
    expect(replayed.totals.breaksBreakpoint).toBeGreaterThan(0);
    expect(replayed.totals.tokensSent).toBeLessThan((await simulate(recorded.requests, noPruning, { systemTokens: 0 })).totals.tokensSent / 3);
    const sentByPi = (pruned.pi.contexts as AgentMessageLike[][]).map((c) => c.map((m) => JSON.stringify(m.content)));
    const transform = await governorPolicy().start();
    for (let i = 0; i < recorded.requests.length; i++) {
      const out = await transform(recorded.requests[i]!.messages);
      expect(out.map((m) => JSON.stringify(m.content))).toEqual(sentByPi[i]);
    }
  }, 120_000);
});

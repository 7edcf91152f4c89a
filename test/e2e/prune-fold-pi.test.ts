import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { blobs } from "../../plugins/blobs/index.ts";
import { fold, NUDGE_KIND, UNFOLD_KIND } from "../../plugins/fold/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { messagesChars } from "../../plugins/prune/size.ts";
import { piTestScope } from "../helpers/pi-session.ts";

const READ_TURNS = 5;
const FILE_CHARS = 6_000;
const SUMMARY = "Turns 1-4 read m1.ts-m4.ts: each exports value constants computed by compute(); nothing to change.";

type Msg = { role: string; content?: unknown; toolCallId?: string };
const textOf = (m: Msg) =>
  typeof m.content === "string" ? m.content : Array.isArray(m.content) ? (m.content as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n") : "";
const callIdsOf = (messages: Msg[], name: string) =>
  messages.flatMap((m) =>
    m.role === "assistant"
      ? (m.content as Array<{ type: string; name?: string; id?: string }>).filter((b) => b.type === "toolCall" && b.name === name).map((b) => b.id!)
      : [],
  );

describe("folding with the real pi SDK", () => {
  const scope = piTestScope();

  it("the model is nudged, folds finished turns with real ids, the next context carries the summary instead, and /governor unfold brings them back", async () => {
    const root = scope.tempDir("pigov-fold-e2e-");
    const cwd = join(root, "work");
    mkdirSync(cwd);
    for (let t = 1; t <= READ_TURNS; t++) {
      const lines: string[] = [];
      for (let i = 0; lines.join("\n").length < FILE_CHARS; i++) lines.push(`export const value${t}_${i} = compute(${t}, ${i});`);
      writeFileSync(join(cwd, `m${t}.ts`), lines.join("\n"));
    }
    let nudge: string | undefined;
    const steps: FauxResponseStep[] = [];
    for (let t = 1; t <= READ_TURNS; t++) {
      steps.push(fauxAssistantMessage([fauxText(`Reading m${t}.ts.`), fauxToolCall("read", { path: `m${t}.ts` })], { stopReason: "toolUse" }));
      steps.push(fauxAssistantMessage([fauxText(`m${t}.ts exports constants.`)]));
    }
    // Turn 6: the model follows the nudge it finds on the user message, with the ids it names.
    steps.push((context) => {
      const last = context.messages.at(-1) as Msg;
      nudge = textOf(last)
        .split("\n")
        .find((l) => l.startsWith("[pi-governor:"));
      const args = JSON.parse(/context_fold\((\{.*?\})\)/.exec(nudge ?? "")?.[1] ?? "{}") as { from: string; to: string };
      return fauxAssistantMessage([fauxToolCall("context_fold", { from: args.from, to: args.to, summary: SUMMARY })], { stopReason: "toolUse" });
    });
    steps.push(fauxAssistantMessage([fauxText("Folded the finished reads.")]));
    steps.push(fauxAssistantMessage([fauxText("Working with everything in view again.")]));

    const preset = definePreset({ name: "e2e-fold", description: "", plugins: () => [blobs(), fold(), prune()] });
    // Adaptive mode off: the reads stay in the context (no boundary step pays yet), which is what a fold is for.
    // 35%: the first request of turn 6 is the first one above it (each read adds ~7.6% of the 20,000-token window).
    const layers = [
      { kind: "global" as const, source: "test", data: { blobs: { dir: join(root, "blobs") }, fold: { nudgePercent: 35 }, prune: { adaptive: false } } },
    ];
    const pi = await scope.start({
      extensions: [createExtension(preset, { governorOptions: { layers, cwd } })],
      responses: steps,
      cwd,
      tools: ["read", "context_fold", "blob_read"],
      persist: true,
      ui: true,
      contextWindow: 20_000,
    });
    for (let t = 1; t <= READ_TURNS; t++) await pi.session.prompt(`What does m${t}.ts do?`);
    await pi.session.prompt("Continue.");

    const contexts = pi.contexts as Msg[][];
    expect(contexts).toHaveLength(READ_TURNS * 2 + 2);
    const readIds = callIdsOf(pi.session.messages as Msg[], "read");
    // The nudge named turns 1-4 (turn 5 and the current turn are the last keepRecentTurns = 2) by their real ids.
    expect(nudge).toMatch(/^\[pi-governor: the context is at \d+% of the window\. Turns 1-4 are finished: fold them with context_fold/);
    expect(nudge).toContain(JSON.stringify({ from: readIds[0], to: readIds[3], summary: "..." }));
    const entries = (kind: string) =>
      pi!.session.sessionManager.getEntries().filter((e) => e.type === "custom" && (e as { customType?: string }).customType === kind);
    expect(entries(NUDGE_KIND)).toHaveLength(1);

    // The fold call succeeded and its result says what was folded.
    const foldId = callIdsOf(pi.session.messages as Msg[], "context_fold")[0]!;
    const result = (pi.session.messages as Array<Msg & { isError?: boolean; details?: { fold?: { chars: number }; blobId?: string } }>).find(
      (m) => m.role === "toolResult" && m.toolCallId === foldId,
    )!;
    expect(result.isError).toBe(false);
    expect(textOf(result)).toMatch(/^Folded turns 1-4 \(16 messages, [\d,]+ chars\)/);
    expect(result.details?.blobId).toMatch(/^[0-9a-f]{64}$/);

    // The next context: one message with the summary where turns 1-4 were; none of their calls or results.
    const before = contexts[READ_TURNS * 2]!;
    const after = contexts[READ_TURNS * 2 + 1]!;
    const foldMessage = after.find((m) => textOf(m).startsWith(`[Folded turns 1-4 by context_fold ${foldId}:`));
    expect(foldMessage?.role).toBe("user");
    expect(textOf(foldMessage!)).toContain(SUMMARY);
    expect(textOf(foldMessage!)).toContain(`blob_read({"blobId":"${String(result.details!.blobId).slice(0, 12)}"})`);
    const sentCalls = (messages: Msg[]) => [...callIdsOf(messages, "read"), ...messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId!] : []))];
    expect(sentCalls(before)).toEqual(expect.arrayContaining(readIds.slice(0, 5)));
    expect(sentCalls(after).filter((id) => readIds.slice(0, 4).includes(id))).toEqual([]);
    expect(sentCalls(after)).toContain(readIds[4]);
    const foldedChars = result.details!.fold!.chars;
    // What the fold took out of the sent context: turns 1-4 as they were sent (messages 0-15) minus the fold message.
    const sentFolded = messagesChars(before.slice(0, 16) as AgentMessageLike[]);
    const saved = sentFolded - messagesChars([foldMessage!] as AgentMessageLike[]);
    if (process.env.PRUNE_E2E_DEBUG)
      process.stderr.write(
        `folded ${foldedChars} chars (${sentFolded} as sent); fold message ${sentFolded - saved}; saved ${saved} of ${messagesChars(before as AgentMessageLike[])} sent\n`,
      );
    expect(foldedChars).toBeGreaterThan(4 * FILE_CHARS);
    expect(saved).toBeGreaterThan(messagesChars(before as AgentMessageLike[]) * 0.4);

    // /governor unfold <id>: restored from the next context on.
    await pi.session.prompt(`/governor unfold ${foldId}`);
    expect(pi.ui.notifications.at(-1)!.message).toMatch(new RegExp(`^Restored ${foldId}: turns 1-4, 16 messages`));
    expect(entries(UNFOLD_KIND)).toHaveLength(1);
    await pi.session.prompt("Go on.");
    const restored = pi.contexts.at(-1) as Msg[];
    expect(restored.some((m) => textOf(m).startsWith("[Folded"))).toBe(false);
    expect(sentCalls(restored)).toEqual(expect.arrayContaining(readIds.slice(0, 4)));
  }, 60_000);
});

/**
 * Recall end to end in the real pi SDK (faux model): a file read in the first turn is pruned from the
 * context by later turns; the model finds it with context_search by a part of an identifier and
 * reads it back with the exact blob_read call the answer names. The stored blob is byte-identical to
 * the result pi keeps in the session.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createExtension } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { BlobStore } from "../../lib/blobs/index.ts";
import { probeSqlite } from "../../lib/sqlite/index.ts";
import { blobs } from "../../plugins/blobs/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { recall } from "../../plugins/recall/index.ts";
import { startPiSession, type PiTestSession, storedMessages } from "../helpers/pi-session.ts";

/** Turns before the early read (so it is turn 3) and after it (a 30+ turn session in all). */
const WARMUP_TURNS = 2;
const LATER_TURNS = 30;

function workspace(): string {
  const cwd = mkdtempSync(join(tmpdir(), "pigov-recall-e2e-"));
  const early: string[] = [];
  for (let i = 0; i < 80; i++) early.push(`export const ledgerEntry${i} = ${i * 7}; // plain bookkeeping`);
  early[55] = "export function flamingoLedgerChecksum(entries: number[]): number { return entries.reduce((a, b) => (a * 31 + b) % 65521, 7); }";
  writeFileSync(join(cwd, "early.ts"), early.join("\n"));
  for (let t = 1; t <= LATER_TURNS; t++) {
    writeFileSync(join(cwd, `later${t}.ts`), Array.from({ length: 120 }, (_, i) => `export const later${t}_${i} = "${"v".repeat(20)}";`).join("\n"));
  }
  return cwd;
}

type Msg = { role: string; toolName?: string; content?: Array<{ type: string; text?: string }>; details?: { blobId?: string } };
const textOf = (m: Msg | undefined) => (m?.content ?? []).map((b) => b.text ?? "").join("\n");

function script(seen: { search?: string; read?: string; placeholder?: string }): FauxResponseStep[] {
  const steps: FauxResponseStep[] = [];
  for (let t = 1; t <= WARMUP_TURNS; t++) steps.push(fauxAssistantMessage([fauxText(`Noted (${t}).`)]));
  steps.push(
    fauxAssistantMessage([fauxToolCall("read", { path: "early.ts" })], { stopReason: "toolUse" }),
    fauxAssistantMessage([fauxText("early.ts holds ledger entries.")]),
  );
  for (let t = 1; t <= LATER_TURNS; t++) {
    steps.push(fauxAssistantMessage([fauxToolCall("read", { path: `later${t}.ts` })], { stopReason: "toolUse" }));
    steps.push(fauxAssistantMessage([fauxText(`later${t}.ts holds constants.`)]));
  }
  // Last turn: the early read is a placeholder by now; search for it by a part of the identifier.
  steps.push((context) => {
    const early = (context.messages as Msg[]).find((m) => m.role === "toolResult" && m.toolName === "read");
    seen.placeholder = textOf(early);
    return fauxAssistantMessage([fauxToolCall("context_search", { query: "LedgerChecksum" })], { stopReason: "toolUse" });
  });
  steps.push((context) => {
    const answer = textOf((context.messages as Msg[]).at(-1));
    seen.search = answer;
    const call = answer.match(/blob_read\((\{.*?\})\)/);
    if (!call) return fauxAssistantMessage([fauxText("no hit")]);
    return fauxAssistantMessage([fauxToolCall("blob_read", JSON.parse(call[1]!) as Record<string, unknown>)], { stopReason: "toolUse" });
  });
  steps.push((context) => {
    seen.read = textOf((context.messages as Msg[]).at(-1));
    return fauxAssistantMessage([fauxText("Found flamingoLedgerChecksum again.")]);
  });
  return steps;
}

describe.skipIf(!probeSqlite().fts5)("recall with the real pi SDK", () => {
  let pi: PiTestSession | undefined;
  let cwd: string | undefined;
  afterEach(async () => {
    await pi?.dispose();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it("finds a pruned early-turn output by a part of an identifier and reads it back byte-exact via blob_read", async () => {
    cwd = workspace();
    const cache = mkdtempSync(join(tmpdir(), "pigov-recall-cache-"));
    const blobDir = join(cache, "blobs");
    const preset = definePreset({ name: "e2e-recall", description: "", plugins: () => [blobs({ builtinTools: ["read", "bash"] }), recall(), prune()] });
    const extension = createExtension(preset, {
      governorOptions: { layers: [] },
      overrides: {
        blobs: { dir: blobDir },
        recall: { dbPath: join(cache, "recall", "index.db") },
        prune: { keepRecentTurns: 1, minStepTokens: 0, minStepPercent: 0, cacheAware: false },
      },
    });
    const seen: { search?: string; read?: string; placeholder?: string } = {};
    pi = await startPiSession({ extensions: [extension], responses: script(seen), cwd, tools: ["read", "context_search", "blob_read"], ui: true });
    for (let t = 1; t <= WARMUP_TURNS; t++) await pi.session.prompt(`Remember note ${t}.`);
    await pi.session.prompt("Read early.ts.");
    for (let t = 1; t <= LATER_TURNS; t++) await pi.session.prompt(`Read later${t}.ts.`);
    await pi.session.prompt("Where was the ledger checksum function?");

    // Pruned, and the placeholder names a byte-exact way back (recall stored the uncut result).
    expect(seen.placeholder).toMatch(/^\(Pruned\) read\(path="early\.ts"\)/);
    expect(seen.placeholder).toMatch(/blob_read\(\{"blobId":"[0-9a-f]{12}"\}\)$/);
    // The search names the early read, its turn and the lines.
    expect(seen.search).toContain('read(path="early.ts")');
    expect(seen.search).toContain(`turn ${WARMUP_TURNS + 1}`);
    expect(seen.search).toContain("flamingo«LedgerChecksum»");
    // blob_read returns the line.
    expect(seen.read).toContain("export function flamingoLedgerChecksum(entries: number[])");

    // Byte-exact: the blob is the result pi keeps in the session, and names the same id.
    const stored = (storedMessages(pi.session) as unknown as Msg[]).find((m) => m.role === "toolResult" && m.toolName === "read")!;
    const blobId = stored.details!.blobId!;
    expect(seen.placeholder).toContain(blobId.slice(0, 12));
    const file = await new BlobStore({ dir: blobDir }).locate(blobId);
    expect(readFileSync(file.path, "utf8")).toBe(textOf(stored));
    // The footer shows what is kept out of the context.
    expect(pi.ui.statuses.get("governor-recall")).toMatch(/^recall: ~[\d,]+ tokens kept out, \d+ outputs searchable$/);
    rmSync(cache, { recursive: true, force: true });
  });

  it("after a compaction the summary the model gets says earlier outputs are searchable, and the hit names its turn", async () => {
    cwd = workspace();
    const cache = mkdtempSync(join(tmpdir(), "pigov-recall-cache-"));
    const blobDir = join(cache, "blobs");
    const preset = definePreset({ name: "e2e-recall", description: "", plugins: () => [blobs({ builtinTools: ["read"] }), recall(), prune()] });
    const extension = createExtension(preset, {
      governorOptions: { layers: [] },
      overrides: { blobs: { dir: blobDir }, recall: { dbPath: join(cache, "recall", "index.db") } },
    });
    const seen: { search?: string } = {};
    const steps: FauxResponseStep[] = [
      fauxAssistantMessage([fauxToolCall("read", { path: "early.ts" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText("read it")]),
      fauxAssistantMessage([fauxText("Second answer.")]),
      fauxAssistantMessage([fauxText("## Summary\nThe user read early.ts.")]), // the compaction summary
      fauxAssistantMessage([fauxToolCall("read", { path: "later1.ts" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("context_search", { query: "later1_5" })], { stopReason: "toolUse" }),
      (context) => {
        seen.search = textOf((context.messages as Msg[]).at(-1));
        return fauxAssistantMessage([fauxText("done")]);
      },
    ];
    // A small keep-recent window: pi 0.74+ refuses to compact a session whose history all fits in it.
    pi = await startPiSession({ extensions: [extension], responses: steps, cwd, tools: ["read", "context_search", "blob_read"], keepRecentTokens: 50 });
    await pi.session.prompt("Read early.ts.");
    await pi.session.prompt("Anything else?");
    await pi.session.compact();
    await pi.session.prompt("Read later1.ts.");
    const last = JSON.stringify(pi.contexts.at(-1));
    expect(last).toContain("The user read early.ts.");
    expect(last).toContain("context_search finds them and names the blob_read call");
    // The session file keeps pi's summary as it was: the pointer is request-only.
    expect(JSON.stringify(pi.session.messages)).not.toContain("context_search finds them");
    // Third prompt: turn 3.
    expect(seen.search).toMatch(/read\(path="later1\.ts"\) · turn 3 ·/);
    rmSync(cache, { recursive: true, force: true });
  });
});

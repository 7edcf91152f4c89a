/**
 * A session file written before the typed result record existed resumes correctly: its results'
 * details (`pinned`, `truncated`/`blobId`/`blobPath`/...) still pin, still point pruning's
 * placeholders at the stored output, and still keep that output out of retention. The file is made
 * by a real pi session and its details are set to what older versions stored; then real pi resumes
 * it (as `pi --session <file>` does) with the blobs and prune plugins.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { blobs } from "../../plugins/blobs/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { piTestScope, readTurnSteps, startPiSession } from "../helpers/pi-session.ts";

const text = (m: AgentMessageLike) => JSON.stringify(m.content);
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const DAY_MS = 86_400_000;

describe("a session file from an older version resumes with its result details understood", () => {
  const scope = piTestScope();

  it("old pins stay whole, an old blob pointer reaches the placeholder and survives retention", async () => {
    const root = scope.tempDir("pigov-oldsession-");
    const cwd = join(root, "repo");
    const cache = join(root, "blobs");
    mkdirSync(cwd);
    mkdirSync(cache, { mode: 0o700 });
    for (let t = 1; t <= 6; t++) writeFileSync(join(cwd, `m${t}.ts`), `// module ${t}\n${"export const x = 1;\n".repeat(400)}`);

    // 1. A plain pi session reads m1..m4 and is saved.
    const first = await startPiSession({ persist: true, cwd, tools: ["read"], extensions: [], responses: readTurnSteps(1, 4) });
    for (let t = 1; t <= 4; t++) await first.session.prompt(`read m${t}.ts`);
    const oldFile = join(root, "old-session.jsonl");
    copyFileSync(first.session.sessionManager.getSessionFile()!, oldFile);
    await first.dispose();

    // 2. Its results get the details an older pi-governor stored: m1 pinned on arrival, m2 cut
    //    to an excerpt whose full output is in the cache (written 30 days ago, past maxAgeDays).
    const full = readFileSync(join(cwd, "m2.ts"), "utf8");
    const blobId = sha256(full);
    const blobPath = join(cache, `${blobId}.txt`);
    writeFileSync(blobPath, full, { mode: 0o600 });
    const stale = join(cache, `${sha256("nobody points here")}.txt`);
    writeFileSync(stale, "nobody points here", { mode: 0o600 });
    const monthAgo = (Date.now() - 30 * DAY_MS) / 1000;
    for (const f of [blobPath, stale]) utimesSync(f, monthAgo, monthAgo);
    const oldDetails: Record<string, Record<string, unknown>> = {
      "m1.ts": { pinned: true, governor: { status: "SUCCESS", durationMs: 3, retries: 0 } },
      "m2.ts": { truncated: true, blobId, blobPath, originalBytes: Buffer.byteLength(full), excerptBytes: 4_000 },
    };
    const calls = new Map<string, string>();
    const lines = readFileSync(oldFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { message?: Record<string, unknown> });
    for (const entry of lines) {
      const m = entry.message;
      if (m?.role === "assistant")
        for (const b of m.content as Array<{ type: string; id?: string; arguments?: { path?: string } }>)
          if (b.type === "toolCall") calls.set(b.id!, b.arguments!.path!);
      if (m?.role === "toolResult") {
        const details = oldDetails[calls.get(m.toolCallId as string)!];
        if (details) m.details = details;
      }
    }
    writeFileSync(oldFile, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

    // 3. pi resumes it with the governor; two more turns push m1..m4 out of the kept window.
    const preset = definePreset({ name: "e2e-old-session", description: "", plugins: () => [blobs(), prune()] });
    const layers = [
      { kind: "global" as const, source: "test", data: { blobs: { dir: cache, maxAgeDays: 7 } } },
      { kind: "project" as const, source: "test", data: { prune: { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false } } },
    ];
    //    A last turn: the model reads m2 back with the blob_read call its placeholder shows.
    let shownCall: Record<string, unknown> | undefined;
    const readBack = [
      (context: { messages: unknown[] }) => {
        const m2 = (context.messages as AgentMessageLike[]).filter((m) => m.role === "toolResult")[1]!;
        const call = /blob_read\((\{.*?\})\)/.exec((m2.content as Array<{ text?: string }>)[0]?.text ?? "")?.[1];
        shownCall = call ? (JSON.parse(call) as Record<string, unknown>) : undefined;
        return fauxAssistantMessage([fauxToolCall("blob_read", shownCall ?? { blobId: "missing" })], { stopReason: "toolUse" });
      },
      fauxAssistantMessage([fauxText("m2 read back.")]),
    ];
    const pi = await scope.start({
      sessionFile: oldFile,
      cwd,
      tools: ["read", "blob_read"],
      extensions: [createExtension(preset, { governorOptions: { layers, cwd } })],
      responses: [...readTurnSteps(5, 6), ...readBack],
    });
    for (let t = 5; t <= 6; t++) await pi.session.prompt(`read m${t}.ts`);

    const results = (pi.contexts.at(-1) as AgentMessageLike[]).filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(6);
    expect(text(results[0]!)).toContain("// module 1"); // pinned by its old details: kept whole
    // The old pointer is the way back: the placeholder names the old full id by its first 12 hex digits...
    expect(text(results[1]!)).toContain(`blob_read({\\"blobId\\":\\"${blobId.slice(0, 12)}\\"})`);
    expect(text(results[2]!)).toContain('(Pruned) read(path=\\"m3.ts\\")');
    expect(text(results[2]!)).not.toContain("blob_read");

    // ...and the model's blob_read with exactly that call gives the old stored output back.
    await pi.session.prompt("read m2.ts back");
    expect(shownCall).toEqual({ blobId: blobId.slice(0, 12) });
    const readResult = (pi.session.messages as unknown as AgentMessageLike[]).filter((m) => m.role === "toolResult" && m.toolName === "blob_read").at(-1);
    expect(readResult?.isError).toBe(false);
    expect(text(readResult!)).toContain("// module 2");
    expect(text(readResult!)).toContain("export const x = 1;");

    // Retention ran (the unreferenced month-old blob is gone) and kept the blob the session points to.
    for (let waited = 0; existsSync(stale) && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(blobPath)).toBe(true);
  }, 60_000);
});

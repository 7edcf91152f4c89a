/**
 * In a real pi session (SDK, faux provider): a catastrophic grep pattern the model sends to blob_read
 * comes back as a clear error result while pi stays responsive, and pi's abort (Esc) ends a running
 * grep at once. Before, the pattern ran on pi's event loop: `^(a+)+$` on 40 characters would freeze
 * pi for hours, beyond the reach of the timeout plugin and of Esc.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../lib/blobs/index.ts";
import { createExtension } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { blobs } from "../../plugins/blobs/index.ts";
import { timeout } from "../../plugins/timeout/index.ts";
import { startPiSession } from "../helpers/pi-session.ts";

const root = mkdtempSync(join(tmpdir(), "pigov-safegrep-e2e-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = join(root, "blobs");
const EVIL = `${"a".repeat(40)}!`;

function toolResults(messages: unknown[]): Array<{ toolName: string; text: string }> {
  return (messages as Array<{ role?: string; toolName?: string; content?: Array<{ type: string; text?: string }> }>)
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ toolName: m.toolName ?? "", text: (m.content ?? []).map((b) => b.text ?? "").join("\n") }));
}

async function session(responses: Parameters<typeof startPiSession>[0]["responses"]) {
  const preset = definePreset({ name: "e2e-safe-grep", description: "", plugins: () => [timeout(), blobs()] });
  return startPiSession({
    extensions: [createExtension(preset, { governorOptions: { layers: [{ kind: "global", source: "test", data: { blobs: { dir } } }] } })],
    responses: responses ?? [],
  });
}

describe("blob_read grep in a real pi session", () => {
  it("a catastrophic pattern comes back as an error result that tells the model what to do; pi stays responsive", async () => {
    const { id } = await new BlobStore({ dir }).put(["first", EVIL, "last"].join("\n"));
    const pi = await session([
      fauxAssistantMessage([fauxToolCall("blob_read", { blobId: id, grep: "^(a+)+$" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText("understood")]),
    ]);
    try {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const started = performance.now();
      await pi.session.prompt("grep the stored output");
      clearInterval(ticker);
      expect(performance.now() - started).toBeLessThan(20_000);
      expect(ticks).toBeGreaterThan(20); // the event loop ran throughout the ~2 s deadline
      const back = toolResults(pi.contexts.at(-1)!).find((r) => r.toolName === "blob_read")!;
      expect(back.text).toMatch(/took longer than 2000 ms .*backtracks catastrophically/);
      expect(back.text).toMatch(/simpler pattern/);
    } finally {
      await pi.dispose();
    }
  });

  it("pi's abort (Esc) ends a running grep at once", async () => {
    const { id } = await new BlobStore({ dir }).put(EVIL);
    const pi = await session([
      fauxAssistantMessage([fauxToolCall("blob_read", { blobId: id, grep: "^(a+)+$" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText("stopped")]),
    ]);
    try {
      const started = performance.now();
      const running = pi.session.prompt("grep it");
      const aborter = setTimeout(() => void pi.session.abort(), 400);
      await running;
      clearTimeout(aborter);
      // Ended by the abort, well before the 2 s pattern deadline would have ended it.
      expect(performance.now() - started).toBeLessThan(1_900);
    } finally {
      await pi.dispose();
    }
  });
});

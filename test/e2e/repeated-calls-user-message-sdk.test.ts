/**
 * The SDK's `session.steer()` inside a run clears the repeated-call memory, as RPC's `steer` does
 * (repeated-calls-user-message.test.ts): a real pi session with the faux provider, a governed
 * read-only tool reading a file, and the user rewriting the file and steering while the model thinks.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, definePreset, textContent } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { policies } from "../../plugins/policies/index.ts";
import { type PiTestSession, startPiSession } from "../helpers/pi-session.ts";

const root = mkdtempSync(join(tmpdir(), "pigov-usermsg-sdk-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const note = join(root, "note.txt");

/** A governed tool the repeated-call memory answers: read-only, closed-world. */
const notes = definePlugin({
  name: "test:notes",
  configKey: "testNotes",
  description: "Reads the note file.",
  schema: z.object({}),
  defaults: {},
  apply(pipeline) {
    pipeline.registerTool("test:notes", {
      name: "read_note",
      description: "Reads the note",
      parameters: Type.Object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      execute: async () => ({ content: textContent(`note=${readFileSync(note, "utf8")}`) }),
    });
  },
});

describe("a user's steer through the SDK clears the repeated-call memory", () => {
  it("the read after session.steer() runs again and sees what the user wrote", async () => {
    writeFileSync(note, "v1-old");
    const preset = definePreset({ name: "e2e-user-message", description: "", plugins: () => [policies(), notes()] });
    let pi: PiTestSession | undefined;
    pi = await startPiSession({
      extensions: [
        createExtension(preset, {
          governorOptions: { layers: [{ kind: "global", source: "test", data: { policies: { repeatedCalls: { enabled: true } } } }] },
        }),
      ],
      responses: [
        fauxAssistantMessage([fauxToolCall("read_note", {})], { stopReason: "toolUse" }),
        // While the model thinks, the user edits the note and steers.
        async () => {
          writeFileSync(note, "v2-NEW-by-user");
          await pi!.session.steer("I just edited the note; read it again");
          return fauxAssistantMessage([fauxToolCall("read_note", {})], { stopReason: "toolUse" });
        },
        fauxAssistantMessage([fauxToolCall("read_note", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    try {
      await pi.session.prompt("read the note");
      const reads = pi.session.messages.filter((m) => m.role === "toolResult").map((m) => JSON.stringify((m as { content: unknown }).content));
      expect(reads).toHaveLength(3);
      expect(reads[0]).toContain("v1-old");
      // Every read after the user's steer reads the file again.
      for (const read of reads.slice(1)) {
        expect(read).not.toContain("answered from that result");
        expect(read).toContain("v2-NEW-by-user");
      }
    } finally {
      await pi.dispose();
    }
  }, 60_000);
});

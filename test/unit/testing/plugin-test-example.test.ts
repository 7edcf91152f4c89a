import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CONTEXT_STAGE, definePlugin, RESULT_STAGE, textContent } from "pi-governor";
import { timeout } from "pi-governor/plugins/timeout/index.ts";
import { fakePiHost } from "pi-governor/testing";

// The plugin under test: a tool of its own, a signature on every result of that tool, and a note to
// the model of how many turns have ended.
const turnNotes = definePlugin({
  name: "acme:turn-notes",
  configKey: "turnNotes",
  description: "acme_echo, signed results and a turn count before each model request",
  schema: z.object({ signature: z.string().max(20) }),
  defaults: { signature: "-- acme" },
  apply(pipeline, config) {
    let turns = 0;
    pipeline.registerTool("acme:turn-notes", {
      name: "acme_echo",
      description: "Echoes a text",
      parameters: Type.Object({ text: Type.String({ maxLength: 200 }) }),
      execute: async (call) => ({ content: textContent(String(call.args.text)) }),
    });
    pipeline.registerTool("acme:turn-notes", {
      name: "acme_wait",
      description: "Never answers",
      parameters: Type.Object({}),
      execute: () => new Promise(() => {}),
    });
    pipeline.hooks.toolResult.tap({ name: "acme:turn-notes", stage: RESULT_STAGE.FORMAT }, (result) =>
      result.toolName.startsWith("acme_") ? { ...result, content: [...result.content, ...textContent(config.signature)] } : undefined,
    );
    pipeline.hooks.turnEnd.tap({ name: "acme:turn-notes" }, () => void turns++);
    pipeline.hooks.context.tap({ name: "acme:turn-notes", stage: CONTEXT_STAGE.PRUNE + 10 }, (messages) => [
      ...messages,
      { role: "user", content: `${turns} turn(s) ended`, timestamp: 0 },
    ]);
  },
});

describe("acme:turn-notes", () => {
  it("signs its tool's results, not pi's own tools'", async () => {
    const host = await fakePiHost({ plugins: [turnNotes({ signature: "-- test" })] });
    await host.start();
    expect(await host.callTool("acme_echo", { text: "hi" })).toMatchObject({ content: textContent("hi").concat(textContent("-- test")), isError: false });
    expect(await host.callTool("read", { path: "a.txt" }, { content: textContent("file text") })).toMatchObject({ content: textContent("file text") });
    await host.shutdown();
  });

  it("tells the model how many turns ended", async () => {
    const host = await fakePiHost({ plugins: [turnNotes()] });
    await host.start();
    await host.prompt("go");
    await host.turnStart(0);
    await host.turnEnd(0, 1);
    const messages = await host.context([{ role: "user", content: "go", timestamp: 0 }]);
    expect(messages.at(-1)).toMatchObject({ role: "user", content: "1 turn(s) ended" });
    await host.shutdown();
  });

  it("ends a hung call at the timeout, on the test's clock", async () => {
    const host = await fakePiHost({ plugins: [timeout(), turnNotes()], overrides: { timeout: { defaultMs: 5_000 } } });
    await host.start();
    const call = host.callTool("acme_wait");
    await host.clock.advance(5_000);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("5s timeout") });
    await host.shutdown();
  });
});

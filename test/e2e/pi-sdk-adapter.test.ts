import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createExtension } from "pi-governor/host";
import { CONTEXT_STAGE, RESULT_STAGE, definePlugin, definePreset, textContent } from "pi-governor";
import { startPiSession, type PiTestSession } from "../helpers/pi-session.ts";

const marker = definePlugin({
  name: "test:marker",
  configKey: "marker",
  description: "Marks context and tool results so the test can see them reach pi.",
  schema: z.object({ tag: z.string() }),
  defaults: { tag: "[governed]" },
  apply(pipeline, config) {
    pipeline.registerTool("test:marker", {
      name: "echo_upper",
      description: "Upper-cases its input",
      parameters: Type.Object({ text: Type.String() }),
      annotations: { readOnlyHint: true },
      execute: async (call) => ({ content: textContent(String(call.args.text).toUpperCase()) }),
    });
    pipeline.hooks.toolResult.tap({ name: "test:marker", stage: RESULT_STAGE.FORMAT }, (value) =>
      value.toolName === "echo_upper" ? { ...value, content: textContent(`${config.tag} ${(value.content[0] as { text: string }).text}`) } : undefined,
    );
    pipeline.hooks.context.tap({ name: "test:marker", stage: CONTEXT_STAGE.PRUNE }, (messages) => [
      ...messages.map((m) =>
        m.role === "user" && Array.isArray(m.content)
          ? {
              ...m,
              content: (m.content as Array<{ type: string; text?: string }>).map((b) => (b.type === "text" ? { ...b, text: `${config.tag} ${b.text}` } : b)),
            }
          : m,
      ),
    ]);
  },
});

const preset = definePreset({ name: "test", description: "e2e", plugins: () => [marker()] });

describe("pi adapter with the real pi SDK", () => {
  let pi: PiTestSession | undefined;
  afterEach(async () => {
    await pi?.dispose();
    pi = undefined;
  });

  it("a context transform reaches the model and a toolResult transform is stored in the session", async () => {
    pi = await startPiSession({
      extensions: [createExtension(preset, { governorOptions: { layers: [] } })],
      responses: [fauxAssistantMessage([fauxToolCall("echo_upper", { text: "hello" })], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("done")])],
    });
    await pi.session.prompt("say hello");

    // The model saw the user message through the context transform.
    const firstContext = pi.contexts[0] as Array<{ role: string; content: unknown }>;
    const user = firstContext.find((m) => m.role === "user")!;
    expect(JSON.stringify(user.content)).toContain("[governed] say hello");

    // The session stored the transformed tool result, with the governor's details.
    const stored = pi.session.messages.find((m) => m.role === "toolResult") as unknown as {
      content: Array<{ text: string }>;
      details: { governor: { status: string } };
    };
    expect(stored.content[0]!.text).toBe("[governed] HELLO");
    expect(stored.details.governor.status).toBe("SUCCESS");
    // The session history itself keeps the untransformed user text: context is request-only.
    const sessionUser = pi.session.messages.find((m) => m.role === "user") as { content: unknown };
    expect(JSON.stringify(sessionUser.content)).not.toContain("[governed]");
  });
});

describe("/governor status in a real pi session", () => {
  it("lists stages in run order, plugins, tools and config sources, and shows config problems once", async () => {
    const pi = await startPiSession({
      ui: true,
      extensions: [
        createExtension(preset, { governorOptions: { layers: [{ kind: "project", source: "/repo/.pi/pi-governor.json", data: { marker: { tag: 5 } } }] } }),
      ],
      responses: [fauxAssistantMessage([fauxText("ok")])],
    });
    try {
      const warnings = pi.ui.notifications.filter((n) => n.level === "warning");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/\/repo\/\.pi\/pi-governor\.json: marker\.tag: 5 is not allowed; use a string/);
      await pi.session.prompt("/governor status");
      const status = pi.ui.notifications.at(-1)!.message;
      expect(status).toMatch(/toolResult: test:marker@100/);
      expect(status).toMatch(/context: test:marker@400/);
      expect(status).toMatch(/Tools: echo_upper/);
      expect(status).toMatch(/Config sources: defaults/);
      expect(status).toMatch(/Problems \(1\)/);
      await pi.session.prompt("/governor nonsense");
      expect(pi.ui.notifications.at(-1)!.message).toMatch(/unknown subcommand "nonsense"/);
    } finally {
      await pi.dispose();
    }
  });
});

describe("failures in a real pi session", () => {
  it("a failing governed tool reaches the model as an error result with its next step, and a broken plugin does not stop the agent", async () => {
    const flaky = definePlugin({
      name: "test:failing",
      configKey: "failing",
      description: "a tool that cannot reach its server, and a transform with a bug",
      schema: z.object({}),
      defaults: {},
      apply(pipeline) {
        pipeline.registerTool("test:failing", {
          name: "fetch_remote",
          description: "always loses its connection",
          parameters: Type.Object({}),
          execute: async () => {
            throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
          },
        });
        pipeline.hooks.toolResult.tap({ name: "test:failing", stage: RESULT_STAGE.FORMAT }, () => {
          throw new Error("transform bug");
        });
      },
    });
    const pi = await startPiSession({
      extensions: [createExtension(definePreset({ name: "f", description: "", plugins: () => [flaky()] }), { governorOptions: { layers: [] } })],
      responses: [fauxAssistantMessage([fauxToolCall("fetch_remote", {})], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("recovered")])],
    });
    try {
      await pi.session.prompt("fetch it");
      const result = pi.session.messages.find((m) => m.role === "toolResult") as unknown as {
        isError: boolean;
        content: Array<{ text: string }>;
        details: { error: { category: string } };
      };
      expect(result.isError).toBe(true);
      expect(result.details.error.category).toBe("connection_lost");
      expect(result.content[0]!.text).toMatch(/fetch_remote failed \(connection_lost\).*Try the call again in a moment/);
      const last = pi.session.messages.at(-1) as { role: string; content: Array<{ text?: string }> };
      expect(last.role).toBe("assistant");
      expect(last.content[0]!.text).toBe("recovered");
    } finally {
      await pi.dispose();
    }
  });
});

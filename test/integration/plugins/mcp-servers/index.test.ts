/**
 * The mcp-servers plugin through a real governor: tools of a real server (server-everything and
 * server-memory behind the fault wrapper) become governed `<server>_<tool>` tools pi accepts; a
 * server that cannot start takes nothing else down; the status tool, commands and footer report it;
 * session shutdown leaves no child.
 */
import { validateToolArguments } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor, type UiBridge } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { mcpServers, STATUS_TOOL } from "../../../../plugins/mcp-servers/index.ts";
import { faultyServer, isAlive, waitGone } from "../../../fixtures/faulty-mcp/command.ts";

function recordingUi() {
  const notes: string[] = [];
  const status = new Map<string, string | undefined>();
  const ui: UiBridge = { hasUI: true, notify: (m) => void notes.push(m), setStatus: (k, t) => void status.set(k, t), confirm: async () => false };
  return { ui, notes, status };
}

async function build(servers: Record<string, unknown>): Promise<Governor> {
  const preset = definePreset({ name: "mcp", description: "", plugins: () => [mcpServers()] });
  return createGovernor({
    preset,
    cwd: process.cwd(),
    agentDir: "/nonexistent",
    env: {},
    layers: [{ kind: "global", source: "global", data: { mcp: { servers } } }],
  });
}

async function shutdown(gov: Governor): Promise<void> {
  await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: process.cwd(), reason: "quit" });
}

describe("mcp-servers plugin", () => {
  it("registers a working server's tools, survives a broken one, reports both, and closes all on shutdown", async () => {
    const everything = faultyServer({ mode: "crash-mid-call", tool: "toggle-simulated-logging", times: 1 });
    const memory = faultyServer({ server: "memory" });
    const gov = await build({
      everything: { command: everything.command, args: everything.args, env: everything.env },
      memory: { command: memory.command, args: memory.args, env: memory.env },
      broken: { command: "pi-governor-no-such-server", installHint: "Broken Server (https://example.invalid)" },
    });
    try {
      expect(gov.problems()).toEqual([]);
      const names = [...gov.pipeline.tools.keys()];
      expect(names).toContain("everything_echo");
      expect(names).toContain("everything_get-sum");
      expect(names).toContain("memory_create_entities");
      expect(names.some((n) => n.startsWith("broken_"))).toBe(false);
      expect(names).toContain(STATUS_TOOL);

      const echo = gov.pipeline.tools.get("everything_echo")!;
      expect(echo.info.tags).toContain("mcp");
      // server-everything's hints for echo, all four carried (rules by hint read them).
      expect(echo.info.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false });
      // pi validates arguments against the parameters as given: the passed-through schema must work there.
      const tool = { name: "everything_echo", description: "", parameters: echo.definition.parameters } as never;
      expect(validateToolArguments(tool, { type: "toolCall", id: "1", name: "everything_echo", arguments: { message: "hi" } } as never)).toEqual({
        message: "hi",
      });
      expect(() => validateToolArguments(tool, { type: "toolCall", id: "1", name: "everything_echo", arguments: {} } as never)).toThrow(/message/);

      const ok = await gov.pipeline.callTool("everything_echo", { message: "governed" });
      expect(ok.status).toBe("SUCCESS");
      expect(contentText(ok.content)).toBe("Echo: governed");
      const sum = await gov.pipeline.callTool("everything_get-sum", { a: 2, b: 3 });
      expect(contentText(sum.content)).toContain("5");
      const entity = await gov.pipeline.callTool("memory_create_entities", { entities: [{ name: "pi", entityType: "agent", observations: ["governed"] }] });
      expect(entity.status).toBe("SUCCESS");

      // A crash mid-call of a tool not safe to repeat: a structured ERROR observation, the other server unaffected.
      const crashed = await gov.pipeline.callTool("everything_toggle-simulated-logging", {});
      expect(crashed.status).toBe("ERROR");
      expect(crashed.details.error).toMatchObject({ error: "server_connection_lost", reconnect_status: "not_replayed", recoverable: false });
      expect(contentText(crashed.content)).toContain("was not replayed");
      expect((await gov.pipeline.callTool("memory_read_graph", {})).status).toBe("SUCCESS");
      const again = await gov.pipeline.callTool("everything_echo", { message: "after crash" });
      expect(contentText(again.content)).toContain("Echo: after crash");
      expect(contentText(again.content)).toContain("was killed by SIGKILL");

      const status = await gov.pipeline.callTool(STATUS_TOOL, {});
      const text = contentText(status.content);
      expect(text).toContain("everything: running");
      expect(text).toContain("reconnects (1)");
      expect(text).toContain("memory: running");
      expect(text).toContain("broken: degraded");
      expect(text).toContain("command not found");

      const { ui, notes, status: footer } = recordingUi();
      gov.attachSession("s", ui);
      await gov.pipeline.hooks.sessionStart.run({ sessionId: "s", cwd: process.cwd(), reason: "startup" });
      expect(footer.get("mcp")).toBe("mcp 2/3 ok, broken: degraded");
      await gov.pipeline.commands.get("governor servers")!.command.handler("", { ui, cwd: process.cwd(), sessionId: "s" });
      expect(notes.at(-1)).toContain("memory: running");
      await gov.pipeline.commands.get("governor restart")!.command.handler("memory", { ui, cwd: process.cwd(), sessionId: "s" });
      expect(notes.at(-1)).toMatch(/memory: restarted \(\d+ tools\)/);
      await gov.pipeline.commands.get("governor restart")!.command.handler("broken", { ui, cwd: process.cwd(), sessionId: "s" });
      expect(notes.at(-1)).toContain("broken: restart failed: command not found");
    } finally {
      await shutdown(gov);
    }
    expect(await waitGone([...everything.pids(), ...memory.pids()])).toEqual([]);
    everything.cleanup();
    memory.cleanup();
  });

  it("declared tools keep the start lazy until the first call", async () => {
    const f = faultyServer({});
    const gov = await build({
      lazy: {
        command: f.command,
        args: f.args,
        env: f.env,
        tools: [
          { name: "echo", readOnly: true, inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } },
          "get-env",
        ],
      },
    });
    try {
      expect([...gov.pipeline.tools.keys()]).toEqual(expect.arrayContaining(["lazy_echo", "lazy_get-env"]));
      expect(f.starts()).toBe(0);
      const obs = await gov.pipeline.callTool("lazy_echo", { message: "late" });
      expect(contentText(obs.content)).toBe("Echo: late");
      expect(f.starts()).toBe(1);
    } finally {
      await shutdown(gov);
    }
    expect(f.pids().filter(isAlive)).toEqual([]);
    f.cleanup();
  });

  it("a project config cannot choose the program (servers is a trusted key)", async () => {
    const preset = definePreset({ name: "mcp", description: "", plugins: () => [mcpServers()] });
    const gov = await createGovernor({
      preset,
      cwd: process.cwd(),
      agentDir: "/nonexistent",
      env: {},
      layers: [{ kind: "project", source: "project", data: { mcp: { servers: { evil: { command: "rm", args: ["-rf", "/"] } } } } }],
    });
    try {
      expect([...gov.pipeline.tools.keys()].some((n) => n.startsWith("evil_"))).toBe(false);
      expect(gov.problems().join("\n")).toMatch(/servers/);
    } finally {
      await shutdown(gov);
    }
  });
});

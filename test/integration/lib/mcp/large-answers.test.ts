/**
 * Large answers from a real stdio MCP server (the SDK's McpServer, test/fixtures/big-answer-mcp):
 * up to maxAnswerBytes they arrive whole on the same connection (no reconnect, no replay); over it
 * the call fails with an error naming the limit and its config key while the server keeps running;
 * and through the mcp-servers plugin with blobs, a 20 MB answer reaches the model as an excerpt
 * plus a blob id. Every server PID is gone afterwards.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contentText, definePreset } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { ManagedMcpServer, type ManagedMcpServerConfig, type ManagedServerEvent } from "../../../../lib/mcp/index.ts";
import { BLOB_MARKER_PATTERN, blobs } from "../../../../plugins/blobs/index.ts";
import { budget } from "../../../../plugins/budget/index.ts";
import { mcpServers } from "../../../../plugins/mcp-servers/index.ts";
import { bigAnswerServer } from "../../../fixtures/big-answer-mcp/command.ts";
import { waitGone } from "../../../fixtures/faulty-mcp/command.ts";
import { rejection, text } from "../../../helpers/managed-mcp.ts";

const MB = 1024 * 1024;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function bigServer(
  config: Partial<ManagedMcpServerConfig> = {},
  throttleMs?: number,
): { server: ManagedMcpServer; events: ManagedServerEvent[]; pids: () => number[] } {
  const fixture = bigAnswerServer(throttleMs);
  const server = new ManagedMcpServer({ name: "big", command: fixture.command, args: fixture.args, env: fixture.env, connectTimeoutMs: 15_000, ...config });
  const events: ManagedServerEvent[] = [];
  server.subscribe((e) => events.push(e));
  cleanups.push(async () => {
    await server.close();
    expect(await waitGone(fixture.pids())).toEqual([]);
    fixture.cleanup();
  });
  return { server, events, pids: fixture.pids };
}

const stateChanges = (events: ManagedServerEvent[]) => events.filter((e) => e.type === "state").map((e) => (e as { to: string }).to);

describe("large answers", () => {
  it("a 20 MB answer arrives whole on the same connection (no reconnect), and the server keeps answering", async () => {
    const { server, events, pids } = bigServer();
    const answer = text(await server.callTool("big", { bytes: 20 * MB }));
    expect(answer.length).toBe(20 * MB);
    expect(answer.slice(0, 20)).toBe("0123456789abcdef0123");
    expect(text(await server.callTool("echo", { text: "still here" }))).toBe("still here");
    expect(stateChanges(events)).toEqual(["starting", "running"]);
    expect(pids()).toHaveLength(1);
  });

  it("a ping waiting behind a long answer is not a hang (bytes still arriving mean alive)", async () => {
    // A slow pipe (256 KiB per 100 ms): the 4 MB answer takes ~1.6 s, the answers to pings queue
    // behind it, far longer than the 400 ms ping limit.
    const { server, events } = bigServer({ heartbeatIntervalMs: 50, heartbeatTimeoutMs: 400 }, 100);
    const answer = text(await server.callTool("big", { bytes: 4 * MB }));
    expect(answer.length).toBe(4 * MB);
    expect(stateChanges(events)).toEqual(["starting", "running"]);
    // A server that really stops mid-answer is still noticed (and the read-only call replayed).
    const hung = server.callTool("big", { bytes: 2 * MB });
    await new Promise((r) => setTimeout(r, 150));
    process.kill(server.status().pid!, "SIGSTOP");
    expect(text(await hung)).toHaveLength(2 * MB);
    expect(stateChanges(events)).toEqual(["starting", "running", "reconnecting", "running"]);
  });

  it("an answer over maxAnswerBytes fails that call with the limit and the key; other calls and the server go on", async () => {
    const { server, events, pids } = bigServer({ maxAnswerBytes: 2 * MB, answerLimitKey: "mcp.servers.big.maxAnswerBytes" });
    const pid = (await server.start(), server.status().pid);
    // A small call in flight at the same time gets its own answer: the dropped line is matched by id.
    const [error, echoed] = await Promise.all([rejection(server.callTool("big", { bytes: 3 * MB })), server.callTool("echo", { text: "beside" })]);
    expect(text(echoed)).toBe("beside");
    expect(error.category).toBe("mcp");
    expect(error.recoverable).toBe(false);
    expect(error.message).toMatch(
      /^big: MCP server "big" answered with 3\.0 MB, over the limit of 2\.0 MB \(mcp\.servers\.big\.maxAnswerBytes\); the answer was dropped and the server keeps running\. Ask for less/,
    );
    expect(error.message).not.toMatch(/exited|cut off|not replayed/);
    expect(error.agentMessage).toContain("Do not repeat");
    expect(text(await server.callTool("big", { bytes: MB }))).toHaveLength(MB);
    expect(server.status().pid).toBe(pid);
    expect(stateChanges(events)).toEqual(["starting", "running"]);
    expect(pids()).toEqual([pid]);
  });

  it("through the mcp-servers plugin with blobs: a 20 MB answer reaches the model as an excerpt and a blob id", async () => {
    const fixture = bigAnswerServer();
    const root = mkdtempSync(join(tmpdir(), "pigov-big-"));
    const preset = definePreset({ name: "mcp", description: "", plugins: () => [budget(), blobs(), mcpServers()] });
    const gov = await createGovernor({
      preset,
      cwd: root,
      agentDir: join(root, "agent"),
      env: {},
      layers: [
        {
          kind: "global",
          source: "test",
          data: {
            blobs: { dir: join(root, "blobs") },
            mcp: { servers: { big: { command: fixture.command, args: fixture.args, env: fixture.env, heartbeatTimeoutMs: 15_000 } } },
          },
        },
      ],
    });
    cleanups.push(async () => {
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: root, reason: "quit" });
      expect(await waitGone(fixture.pids())).toEqual([]);
      fixture.cleanup();
      rmSync(root, { recursive: true, force: true });
    });
    expect(gov.problems()).toEqual([]);
    const args = { bytes: 20 * MB };
    const obs = await gov.pipeline.callTool("big_big", args);
    expect(obs.status, contentText(obs.content)).toBe("SUCCESS");
    const out = await gov.pipeline.hooks.toolResult.run(
      { toolName: "big_big", toolCallId: "t", input: args, content: obs.content, details: obs.details, isError: false },
      { tool: gov.pipeline.tools.get("big_big")!.info, sessionId: "s" },
    );
    const excerpt = contentText(out.content);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(6_144);
    expect(excerpt).toMatch(BLOB_MARKER_PATTERN);
    expect(out.details).toMatchObject({ truncated: true, originalBytes: 20 * MB });
    expect(statSync(out.details!.blobPath as string).size).toBe(20 * MB);
    const page = await gov.pipeline.callTool("blob_read", { blobId: out.details!.blobId, offset: 1, limit: 2 });
    expect(contentText(page.content)).toContain("0123456789abcdef");

    // Over the configured limit: the model gets the clear error naming the key, not a crash report.
    const over = await gov.pipeline.callTool("big_big", { bytes: 70 * MB });
    expect(over.status).toBe("ERROR");
    expect(contentText(over.content)).toContain("over the limit of 64 MB (mcp.servers.big.maxAnswerBytes)");
    expect(contentText(over.content)).not.toMatch(/exited|cut off/);
    expect(fixture.pids()).toHaveLength(1);
  });
});

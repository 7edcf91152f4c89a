/**
 * A governed stack over real MCP servers for the resilience integration tests: execution log ->
 * breaker -> retry -> timeout -> a tool whose execute calls a ManagedMcpServer (lib/mcp) with the
 * per-attempt signal. Everything is closed after each test, and no child may outlive it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterEach, expect } from "vitest";
import { type ContentBlock, definePreset, type Governor, type ToolAnnotations } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { deepMerge } from "../../core/config/merge.ts";
import { liveChildCount, ManagedMcpServer, type ManagedMcpServerConfig } from "../../lib/mcp/index.ts";
import { openDatabase } from "../../lib/sqlite/index.ts";
import { breaker } from "../../plugins/circuit-breaker/index.ts";
import { executionLog } from "../../plugins/execution-log/index.ts";
import { retry } from "../../plugins/retry/index.ts";
import { timeout } from "../../plugins/timeout/index.ts";
import { toolsPlugin } from "pi-governor/testing";

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  expect(liveChildCount(), "no MCP child may outlive the test").toBe(0);
});

/** One MCP tool exposed through the pipeline. */
export interface RemoteTool {
  /** The tool's name on the server. */
  name: string;
  annotations?: ToolAnnotations;
}

/** A running governed stack over one MCP server. */
export interface Stack {
  gov: Governor;
  server: ManagedMcpServer;
  dbPath: string;
  /** Flushes the execution log (session shutdown) and returns its rows, oldest first. */
  rows(): Promise<Array<Record<string, unknown>>>;
}

/** Builds the stack: config `overrides` per plugin section (timeout, retry, breaker, executionLog). */
export async function governedStack(serverConfig: ManagedMcpServerConfig, tools: RemoteTool[], overrides: Record<string, unknown> = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "gov-resilience-"));
  const server = new ManagedMcpServer({ connectTimeoutMs: 15_000, ...serverConfig });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const mcpTools = toolsPlugin(
    tools.map((t) => ({
      name: t.name,
      description: t.name,
      parameters: Type.Object({}, { additionalProperties: true }),
      ...(t.annotations ? { annotations: t.annotations } : {}),
      tags: ["mcp", `server:${serverConfig.name}`],
      async execute(call) {
        // call.signal is the timeout plugin's per-attempt signal, linked to the caller's.
        const result = await server.callTool(t.name, { ...call.args }, { signal: call.signal });
        // An isError result becomes a thrown value the pipeline classifies (transient text -> network/rate_limit).
        if (result.isError) throw { isError: true, content: result.content };
        return { content: result.content.filter((b): b is ContentBlock => b.type === "text" || b.type === "image") as ContentBlock[] };
      },
    })),
    { name: "test:mcp-tools", configKey: "testMcpTools", description: "MCP tools for the resilience tests" },
  );
  const dbPath = join(dir, "executions.db");
  const preset = definePreset({ name: "resilience-test", description: "", plugins: () => [executionLog(), breaker(), retry(), timeout(), mcpTools()] });
  const gov = await createGovernor({ preset, cwd: dir, agentDir: dir, env: {}, layers: [], overrides: deepMerge({ executionLog: { dbPath } }, overrides) });
  // Cleanups run in reverse: the server closes (calls in flight end and log their rows), then the
  // execution log flushes and closes, then its folder goes; no late write recreates it in the temp dir.
  cleanups.push(() => gov.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: dir, reason: "test end" }));
  cleanups.push(() => server.close());
  expect(gov.problems()).toEqual([]);
  return {
    gov,
    server,
    dbPath,
    async rows() {
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: dir, reason: "test" });
      const db = openDatabase(dbPath, { readonly: true });
      try {
        return db
          .prepare("SELECT * FROM tool_execution_log ORDER BY id")
          .all()
          .map((row) => ({ ...row }));
      } finally {
        db.close();
      }
    },
  };
}

/** Polls `check` every 10 ms for at most `ms` (default 2000): for effects in another process. */
export async function eventually(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Blobs and budget through REAL MCP servers (server-filesystem and server-everything, run with node
 * over stdio) behind lib/mcp's ManagedMcpServer, called from governed tools as a preset would.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset, type ContentBlock, type Governor, type ToolResultValue } from "pi-governor";
import { ManagedMcpServer } from "../../../../lib/mcp/index.ts";
import { BLOB_MARKER_PATTERN, blobs } from "../../../../plugins/blobs/index.ts";
import { budget } from "../../../../plugins/budget/index.ts";
import { toolsPlugin, type TestTool } from "pi-governor/testing";

const require = createRequire(import.meta.url);
const entry = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

const root = mkdtempSync(join(tmpdir(), "pigov-blob-int-"));
const files = join(root, "files");
const blobDir = join(root, "blobs");
let fsServer: ManagedMcpServer;
let everything: ManagedMcpServer;

beforeAll(async () => {
  const { mkdirSync } = await import("node:fs");
  mkdirSync(files, { recursive: true });
  fsServer = new ManagedMcpServer({
    name: "fs",
    command: process.execPath,
    args: [entry("@modelcontextprotocol/server-filesystem"), files],
    connectTimeoutMs: 15_000,
  });
  everything = new ManagedMcpServer({
    name: "everything",
    command: process.execPath,
    args: [entry("@modelcontextprotocol/server-everything"), "stdio"],
    connectTimeoutMs: 15_000,
  });
  await Promise.all([fsServer.start(), everything.start()]);
});

afterAll(async () => {
  await Promise.all([fsServer?.close(), everything?.close()]);
  rmSync(root, { recursive: true, force: true });
});

/** Governed tools over the two servers; the raw MCP result's structuredContent goes into details, as a naive adapter would. */
const mcpTool = (name: string, server: () => ManagedMcpServer, remote: string): TestTool => ({
  name,
  description: remote,
  parameters: Type.Object({}, { additionalProperties: true }),
  tags: ["mcp"],
  execute: async (call) => {
    const result = await server().callTool(remote, { ...call.args }, { signal: call.signal });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return { content: result.content as ContentBlock[], details: result.structuredContent ? { structuredContent: result.structuredContent } : {} };
  },
});
const mcpTools = toolsPlugin([mcpTool("fs_read", () => fsServer, "read_text_file"), mcpTool("echo", () => everything, "echo")], {
  name: "test:mcp-tools",
  configKey: "mcpTools",
});

async function governor(config: Record<string, unknown> = {}): Promise<Governor> {
  const preset = definePreset({ name: "int", description: "", plugins: () => [budget(), blobs(), mcpTools()] });
  const gov = await createGovernor({
    preset,
    cwd: root,
    agentDir: join(root, "agent"),
    env: {},
    layers: [{ kind: "global", source: "test", data: { blobs: { dir: blobDir }, ...config } }],
  });
  expect(gov.problems()).toEqual([]);
  return gov;
}

/** A governed call and the toolResult hook, exactly as the pi adapter chains them. */
async function callShaped(gov: Governor, name: string, args: Record<string, unknown>): Promise<ToolResultValue> {
  const obs = await gov.pipeline.callTool(name, args);
  expect(obs.status).toBe("SUCCESS");
  return gov.pipeline.hooks.toolResult.run(
    { toolName: name, toolCallId: "t", input: args, content: obs.content, details: obs.details, isError: false },
    { tool: gov.pipeline.tools.get(name)!.info, sessionId: "s" },
  );
}

const textOf = (content: readonly ContentBlock[]) => content.map((b) => (b.type === "text" ? b.text : "")).join("\n");

/** Reads a blob back through blob_read, line page by line page. */
async function readAllLines(gov: Governor, blobId: string): Promise<string> {
  const lines: string[] = [];
  let offset: number | undefined = 1;
  for (let guard = 0; offset !== undefined && guard < 10_000; guard++) {
    const obs = await gov.pipeline.callTool("blob_read", { blobId, offset, limit: 1_000 });
    expect(obs.status).toBe("SUCCESS");
    const out = textOf(obs.content);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(12_288 + 400);
    lines.push(
      ...out
        .split("\n")
        .slice(1)
        .filter((l) => !/^\[(next: |end of blob\])/.test(l)),
    );
    offset = (obs.details.nextLine as number | null) ?? undefined;
  }
  return lines.join("\n");
}

describe("blobs through real MCP servers", () => {
  it("server-filesystem reading a large file: bounded excerpt, the blob is the full file, readable through blob_read", async () => {
    const content = Array.from({ length: 6_000 }, (_, i) => `${String(i + 1).padStart(5, "0")} ünïcödé ✓ ${"lorem ipsum ".repeat(3)}`).join("\n");
    const path = join(files, "large.txt");
    writeFileSync(path, content);
    const gov = await governor();
    const out = await callShaped(gov, "fs_read", { path });
    const excerpt = textOf(out.content);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(6_144);
    expect(excerpt).toMatch(BLOB_MARKER_PATTERN);
    expect(out.details).toMatchObject({ truncated: true, originalBytes: Buffer.byteLength(content) });
    // The structuredContent copy of the file is not kept in details.
    expect(JSON.stringify(out.details).length).toBeLessThan(2_048);
    expect(readFileSync(out.details!.blobPath as string, "utf8")).toBe(content);
    expect(await readAllLines(gov, out.details!.blobId as string)).toBe(content);
    const grep = await gov.pipeline.callTool("blob_read", { blobId: out.details!.blobId, grep: "^03000 " });
    expect(textOf(grep.content)).toContain(`\n3000: 03000 ünïcödé ✓`);
  });

  it("server-everything echoing 200 KB: bounded excerpt, the blob is the full answer, readable by bytes", async () => {
    const message = Array.from({ length: (200 * 1024) / 64 }, (_, i) => `${i.toString(36).padStart(8, "-")}${"é".repeat(20)}${"x".repeat(15)}`).join("\n");
    const gov = await governor();
    const out = await callShaped(gov, "echo", { message });
    const full = `Echo: ${message}`;
    expect(Buffer.byteLength(textOf(out.content))).toBeLessThanOrEqual(6_144);
    expect(out.details).toMatchObject({ truncated: true, originalBytes: Buffer.byteLength(full) });
    expect(readFileSync(out.details!.blobPath as string).equals(Buffer.from(full))).toBe(true);
    let pages = "";
    let offset = 0;
    for (let guard = 0; guard < 1_000; guard++) {
      const obs = await gov.pipeline.callTool("blob_read", { blobId: out.details!.blobId, unit: "bytes", offset });
      const body = textOf(obs.content);
      pages += body.slice(body.indexOf("\n") + 1).replace(/\n\[(next: .*|end of blob)\]$/, "");
      if (obs.details.nextOffset === obs.details.totalBytes) break;
      offset = obs.details.nextOffset as number;
    }
    expect(pages).toBe(full);
  });

  it("the budget downshifts a real request (head: 100 lines) when the whole file is over budget", async () => {
    const content = Array.from({ length: 3_000 }, (_, i) => `line ${i + 1} ${"z".repeat(30)}`).join("\n");
    const path = join(files, "budget.txt");
    writeFileSync(path, content);
    const gov = await governor({
      budget: { perTool: { fs_read: { maxBytes: 8_000, ladder: [{ head: 1_000 }, { head: 100 }], hint: "read a range with head or tail" } } },
    });
    const out = await callShaped(gov, "fs_read", { path });
    const text = textOf(out.content);
    expect(text).toMatch(
      /^\[budget: fs_read answered [\d,]+ bytes, over its 8,000-byte budget; shown: head=100 \([\d,]+ bytes\)\]\n\[blob: [\d,]+ bytes stored; blob_read/,
    );
    expect(text.endsWith("line 100 " + "z".repeat(30))).toBe(true);
    // The first, full answer is the blob the result names: the way back to all 3,000 lines.
    const blob = (await gov.pipeline.callTool("fs_read", { path })).meta.blob;
    expect(blob).toMatchObject({ truncated: true, originalBytes: Buffer.byteLength(content) });
    const back = await gov.pipeline.callTool("blob_read", { blobId: blob!.id, offset: 2_990, limit: 20 });
    expect(textOf(back.content)).toContain(`line 3000 ${"z".repeat(30)}`);
    expect(text).toContain(`"blobId":"${blob!.id!.slice(0, 12)}"`);
  });
});

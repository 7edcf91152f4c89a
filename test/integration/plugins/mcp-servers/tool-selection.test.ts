/**
 * Tool names and list sizes from real MCP servers over stdio (test/fixtures/many-tools-mcp): a
 * `<server>_<tool>` name two servers would share is offered for neither (a call never reaches the
 * wrong server) and the other tools of both stay; a server listing 20,000 tools offers at most
 * maxTools / maxSchemaBytes of them, with one warning naming the server and the counts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { mcpServers, schemaBytes } from "../../../../plugins/mcp-servers/index.ts";
import { manyToolsServer } from "../../../fixtures/many-tools-mcp/command.ts";

let gov: Governor | undefined;
afterEach(async () => {
  await gov?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: process.cwd(), reason: "quit" });
  gov = undefined;
});

async function build(servers: Record<string, unknown>): Promise<Governor> {
  const preset = definePreset({ name: "mcp", description: "", plugins: () => [mcpServers()] });
  gov = await createGovernor({
    preset,
    cwd: process.cwd(),
    agentDir: "/nonexistent",
    env: {},
    layers: [{ kind: "global", source: "global", data: { mcp: { servers } } }],
  });
  return gov;
}

const mcpTools = (g: Governor) => [...g.pipeline.tools.keys()].filter((n) => n !== "governor_connection_status").sort();

describe("MCP tool selection", () => {
  it("servers fs and fs_remote: fs_remote_write is ambiguous and offered for neither; every other tool of both works", async () => {
    const g = await build({
      fs: manyToolsServer({ label: "fs", names: ["remote_write", "read"] }),
      fs_remote: manyToolsServer({ label: "fs_remote", names: ["write", "list"] }),
    });
    expect(mcpTools(g)).toEqual(["fs_read", "fs_remote_list"]);
    const warning = g.degraded().find((l) => l.includes('"fs_remote_write"'));
    expect(warning).toBeDefined();
    expect(warning).toContain('server "fs" tool "remote_write"');
    expect(warning).toContain('server "fs_remote" tool "write"');
    expect(contentText((await g.pipeline.callTool("fs_remote_list", { text: "x" })).content)).toBe('fs_remote ran list {"text":"x"}');
    expect(contentText((await g.pipeline.callTool("fs_read", { text: "y" })).content)).toBe('fs ran read {"text":"y"}');
  }, 60_000);

  it("one server listing 20,000 tools (~40 MB of schemas): at most 200 tools and 256 KiB offered, one warning with the counts", async () => {
    const g = await build({
      big: manyToolsServer({ label: "big", count: 20_000, describeBytes: 2_000 }),
      small: manyToolsServer({ label: "small", names: ["ping"] }),
    });
    const offered = mcpTools(g).filter((n) => n.startsWith("big_"));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.length).toBeLessThanOrEqual(200);
    const bytes = offered
      .map((n) => g.pipeline.tools.get(n)!.definition)
      .reduce((s, d) => s + schemaBytes({ name: d.name.slice(4), description: d.description, inputSchema: d.parameters as never }), 0);
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
    expect(mcpTools(g)).toContain("small_ping"); // other servers unaffected
    const warnings = g.degraded().filter((l) => l.includes('MCP server "big" lists 20,000 tools'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the first ${offered.length} are offered`);
    expect(warnings[0]).toContain(`${(20_000 - offered.length).toLocaleString("en-US")} left out`);
    expect(warnings[0]).toContain("mcp.servers.big.maxTools");
  }, 120_000);

  it("maxTools and maxSchemaBytes are per server and bounded", async () => {
    const g = await build({
      capped: { ...manyToolsServer({ label: "capped", count: 30 }), maxTools: 7 },
      tight: { ...manyToolsServer({ label: "tight", count: 30, describeBytes: 500 }), maxSchemaBytes: 2_048 },
      wild: { ...manyToolsServer({ label: "wild", names: ["a"] }), maxTools: 1_000_000 },
    });
    expect(mcpTools(g).filter((n) => n.startsWith("capped_"))).toHaveLength(7);
    expect(mcpTools(g).filter((n) => n.startsWith("tight_")).length).toBeLessThanOrEqual(3);
    expect(g.problems().join("\n")).toMatch(/mcp\.servers\.wild\.maxTools/);
  }, 60_000);
});

describe("MCP tool names that belong to pi-governor", () => {
  it("server blob listing read, server context listing search: never take blob_read or context_search", async () => {
    const g = await build({
      blob: manyToolsServer({ label: "blob", names: ["read", "other"] }),
      context: manyToolsServer({ label: "context", names: ["search"] }),
    });
    expect(mcpTools(g)).toEqual(["blob_other"]);
    expect(g.degraded().join("\n")).toContain('MCP server "blob": tool(s) "read" (blob_read) left out');
    expect(g.degraded().join("\n")).toContain('MCP server "context": tool(s) "search" (context_search) left out');
  }, 60_000);
});

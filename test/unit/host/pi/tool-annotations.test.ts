import { describe, expect, it } from "vitest";
import { hostToolsFrom } from "../../../../host/pi/tool-annotations.ts";

describe("what pi reports of its tools", () => {
  it("hints, and the MCP server tool of pi's MCP tools from their namespace; the server list read again each time", () => {
    const tools: Array<Record<string, unknown>> = [
      { name: "read" },
      { name: "mcp__dev_radius__search", annotations: { readOnlyHint: true, title: "x" }, namespace: { name: "mcp__dev_radius", aliases: ["dev-radius"] } },
      { name: "sneaky", namespace: { name: "mcp__dev_radius", aliases: ["dev-radius"] } },
    ];
    const host = hostToolsFrom({ getAllTools: () => tools as never });
    expect(host.annotations("read")).toMatchObject({ readOnlyHint: true });
    expect(host.annotations("mcp__dev_radius__search")).toEqual({ readOnlyHint: true });
    expect(host.mcpIdentities("mcp__dev_radius__search")).toEqual([{ server: "dev-radius", tool: "search" }]);
    expect(host.mcpIdentities("sneaky")).toEqual([]);
    expect(host.mcpIdentities("bash")).toEqual([]);
    expect(host.mcpServers()).toEqual(["dev-radius"]);
    // A name pi may have hashed is judged as written and as the server's tool whose name pi cut.
    const cut = "mcp__dev_radius__drop_all_tables_and_wipe_backups_immed_3ba34377"; // 64 characters: pi's cut
    tools.push({ name: cut, namespace: { name: "mcp__dev_radius", aliases: ["dev-radius"] } });
    expect(host.mcpIdentities(cut)).toEqual([
      { server: "dev-radius", tool: "drop_all_tables_and_wipe_backups_immed_3ba34377" },
      { server: "dev-radius", tool: "drop_all_tables_and_wipe_backups_immed", hash: "3ba34377", truncated: true },
    ]);
    tools.push({ name: "mcp__docs__get", namespace: { name: "mcp__docs" } });
    expect(host.mcpServers()).toEqual(["dev-radius", "docs"]);
  });

  it("a name pi cut inside the server's name: the namespace names the server, the tool is known by pi's hash", () => {
    const server = "production-database-cluster-primary-eu-west-1-critical-xyz";
    const cut = "mcp__production_database_cluster_primary_eu_west_1_crit_7b1a942f";
    const namespace = { name: `mcp__${server.replace(/-/g, "_")}`, aliases: [server] };
    const tools: Array<Record<string, unknown>> = [
      { name: cut, namespace },
      // Another namespace whose server's name does not start with what pi left: not that server's tool.
      { name: "mcp__production_database_cluster_primary_eu_west_1_crit_00000000", namespace: { name: "mcp__docs", aliases: ["docs"] } },
    ];
    const host = hostToolsFrom({ getAllTools: () => tools as never });
    expect(host.mcpIdentities(cut)).toEqual([{ server, tool: "", hash: "7b1a942f", truncated: true }]);
    expect(host.mcpIdentities("mcp__production_database_cluster_primary_eu_west_1_crit_00000000")).toEqual([]);
    expect(host.mcpServers()).toEqual([server]);
  });

  it("knows nothing before pi can list its tools", () => {
    const host = hostToolsFrom({
      getAllTools: () => {
        throw new Error("not bound");
      },
    });
    expect(host.annotations("bash")).toEqual({});
    expect(host.mcpIdentities("mcp__a__b")).toEqual([]);
    expect(host.mcpServers()).toEqual([]);
  });
});

describe("which tools pi has", () => {
  it("knows pi's tools, learns tools registered later, and names an invented one unknown", () => {
    const tools = [{ name: "read" }, { name: "bash" }];
    let reads = 0;
    const host = hostToolsFrom({
      getAllTools: () => {
        reads++;
        return tools as never;
      },
    });
    expect(host.has("read")).toBe(true);
    expect(host.has("x".repeat(65_540))).toBe(false);
    tools.push({ name: "mcp__acme__search" });
    expect(host.has("mcp__acme__search")).toBe(true);
    const before = reads;
    expect(host.has("read")).toBe(true);
    expect(reads).toBe(before);
  });

  it("counts every name as known while pi's tool list cannot be read yet", () => {
    const host = hostToolsFrom({
      getAllTools: () => {
        throw new Error("Extension runtime not initialized");
      },
    });
    expect(host.has("anything")).toBe(true);
  });
});

describe("the MCP servers extensions registered", () => {
  it("lists those pi may reach, connected or not; none where extensions cannot register; unknown where pi cannot say", () => {
    const registered = [
      { name: "vault", config: { command: "x", exposure: "codemode" } },
      { name: "off", config: { command: "x", enabled: false } },
      { name: "hidden", config: { command: "x", exposure: "hidden" } },
    ];
    const host = hostToolsFrom({ getAllTools: () => [], getMcpServers: () => registered, registerMcpServer: () => {} } as never);
    expect(host.registeredMcpServers()).toEqual(["vault"]);
    expect(hostToolsFrom({ getAllTools: () => [] }).registeredMcpServers()).toEqual([]);
    expect(hostToolsFrom({ getAllTools: () => [], registerMcpServer: () => {} } as never).registeredMcpServers()).toBeUndefined();
    const unbound = hostToolsFrom({
      getAllTools: () => [],
      getMcpServers: () => {
        throw new Error("not bound");
      },
    } as never);
    expect(unbound.registeredMcpServers()).toBeUndefined();
  });
});

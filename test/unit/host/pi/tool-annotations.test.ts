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
    expect(host.mcpIdentity("mcp__dev_radius__search")).toEqual({ server: "dev-radius", tool: "search" });
    expect(host.mcpIdentity("sneaky")).toBeUndefined();
    expect(host.mcpIdentity("bash")).toBeUndefined();
    expect(host.mcpServers()).toEqual(["dev-radius"]);
    tools.push({ name: "mcp__docs__get", namespace: { name: "mcp__docs" } });
    expect(host.mcpServers()).toEqual(["dev-radius", "docs"]);
  });

  it("knows nothing before pi can list its tools", () => {
    const host = hostToolsFrom({
      getAllTools: () => {
        throw new Error("not bound");
      },
    });
    expect(host.annotations("bash")).toEqual({});
    expect(host.mcpIdentity("mcp__a__b")).toBeUndefined();
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

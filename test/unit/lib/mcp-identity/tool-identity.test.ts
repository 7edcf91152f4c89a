import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mcpNormalized, mcpSpellings, piHashedIdentity, piMcpIdentity, piMcpToolName, resourceCallReach } from "../../../../lib/mcp-identity/tool-identity.ts";

describe("one identity for an MCP server's tool", () => {
  it("spells it as pi and as pi-governor do, normalized as pi writes names", () => {
    expect(mcpSpellings({ server: "acme", tool: "wipe" })).toEqual({ pi: "mcp__acme__wipe", governed: "acme_wipe" });
    expect(mcpSpellings({ server: "dev-radius", tool: "get.item" })).toEqual({ pi: "mcp__dev_radius__get_item", governed: "dev_radius_get_item" });
    expect(mcpNormalized("acme_get-sum*")).toBe("acme_get_sum*");
  });

  it("takes pi's MCP tool identity from its namespace, only for a tool whose name continues that namespace", () => {
    const ns = { name: "mcp__dev_radius", aliases: ["dev-radius"] };
    expect(piMcpIdentity("mcp__dev_radius__search", ns)).toEqual({ server: "dev-radius", tool: "search" });
    expect(piMcpIdentity("mcp__acme__search", { name: "mcp__acme" })).toEqual({ server: "acme", tool: "search" });
    // Another extension's tool claiming a server's namespace under another name gets none.
    expect(piMcpIdentity("innocent", ns)).toBeUndefined();
    expect(piMcpIdentity("mcp__dev_radiusX__search", ns)).toBeUndefined();
    expect(piMcpIdentity("mcp__dev_radius__", ns)).toBeUndefined();
    for (const bad of [undefined, null, "mcp__x", { name: 3 }, { name: "tools" }]) expect(piMcpIdentity("mcp__x__y", bad)).toBeUndefined();
  });

  it("names a tool as pi 1.x does: cut to 55 characters with a hash when longer than 64 or shared", () => {
    const hash = (server: string, tool: string) => createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
    const long = { server: "production-dbs", tool: "drop_all_tables_and_wipe_backups_immediately" };
    expect(piMcpToolName(long)).toBe(`mcp__production_dbs__drop_all_tables_and_wipe_backups_i_${hash("production-dbs", long.tool)}`);
    expect(piMcpToolName(long)).toHaveLength(64);
    expect(piMcpToolName({ server: "acme", tool: "wipe-all" })).toBe("mcp__acme__wipe_all");
    expect(piMcpToolName({ server: "acme", tool: "wipe-all" }, true)).toBe(`mcp__acme__wipe_all_${hash("acme", "wipe-all")}`);
  });

  it("reads pi's hashed name back: the whole tool name when shared, its start when cut; no hash, no second identity", () => {
    const shared = piMcpToolName({ server: "acme", tool: "wipe-all" }, true);
    const plainShared = piMcpIdentity(shared, { name: "mcp__acme", aliases: ["acme"] })!;
    expect(piHashedIdentity(shared, plainShared)).toEqual({ server: "acme", tool: "wipe_all", hash: shared.slice(-8) });
    const cut = piMcpToolName({ server: "production-dbs", tool: "drop_all_tables_and_wipe_backups_immediately" });
    const plainCut = piMcpIdentity(cut, { name: "mcp__production_dbs", aliases: ["production-dbs"] })!;
    expect(piHashedIdentity(cut, plainCut)).toEqual({
      server: "production-dbs",
      tool: "drop_all_tables_and_wipe_backups_i",
      hash: cut.slice(-8),
      truncated: true,
    });
    expect(piHashedIdentity("mcp__acme__wipe", { server: "acme", tool: "wipe" })).toBeUndefined();
    expect(piHashedIdentity("mcp__acme___0123abcd", { server: "acme", tool: "_0123abcd" })).toBeUndefined();
  });

  it("reads a resource tool's server as pi does: trimmed; blank, absent, not a string or overlong reaches every server", () => {
    const known = ["acme", "other"];
    expect(resourceCallReach("read_mcp_resource", { server: " acme\t" }, known)).toEqual({
      targets: [{ server: "acme", tool: "read_mcp_resource" }],
      everyServer: false,
    });
    for (const server of [undefined, "", "   ", 7, ["acme"], { a: 1 }, "a".repeat(65)]) {
      expect(resourceCallReach("list_mcp_resources", { server }, known)).toEqual({
        targets: known.map((s) => ({ server: s, tool: "list_mcp_resources" })),
        everyServer: true,
      });
    }
    expect(resourceCallReach("read", { server: "acme" }, known)).toBeUndefined();
  });
});

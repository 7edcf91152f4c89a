import { describe, expect, it } from "vitest";
import type { ToolInfo } from "pi-governor";
import { policiesDefaults, type PoliciesOptions } from "../../../../plugins/policies/index.ts";
import { CallIdentities } from "../../../../plugins/policies/identity.ts";
import { unmatchedGlobs } from "../../../../plugins/policies/unmatched.ts";

const tool = (name: string, mcp?: { server: string; tool: string }): ToolInfo => ({
  name,
  description: "",
  annotations: {},
  tags: [],
  owner: "t",
  ...(mcp ? { mcp } : {}),
});
const governed = [tool("acme_echo", { server: "acme", tool: "echo" }), tool("blob_read")];
const none = { deny: [], rules: [], limits: [] };
const check = (policies: Partial<PoliciesOptions>, piServers: string[] = []) =>
  unmatchedGlobs(
    { ...policiesDefaults, ...policies },
    governed,
    piServers,
    new CallIdentities(
      none,
      () => governed,
      () => piServers,
    ),
  );

describe("globs that match no tool known at load", () => {
  it("names each by where it is written; a managed server's tools are known under both spellings", () => {
    const lines = check({
      deny: ["mcp__acme__ehco*", "mcp__acme__echo", "acme_*", "read", "mcp__docs__delete_*"],
      rules: [{ tools: "kota_*", action: "ask" }],
      limits: [{ tools: "*", perRun: 5, onExceed: "refuse" }],
    });
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["policies.deny[0]", "policies.deny[4]", "policies.rules[0].tools"]);
    expect(lines[0]).toContain('"mcp__acme__ehco*" matches no tool pi-governor knows of at load');
  });

  it("a server pi runs from mcp.json counts for any glob that could name one of its tools (they are listed only later)", () => {
    expect(check({ deny: ["mcp__docs__delete_*", "docs_delete", "mcp__docss__*"] }, ["docs"]).map((l) => l.split(" ")[0])).toEqual(["policies.deny[2]"]);
  });

  it("says nothing without globs, and skips the check (saying so) past 4096 tools", () => {
    expect(check({})).toEqual([]);
    const many = Array.from({ length: 4_100 }, (_, i) => tool(`t${i}`));
    const lines = unmatchedGlobs(
      { ...policiesDefaults, deny: ["x"] },
      many,
      [],
      new CallIdentities(
        none,
        () => many,
        () => [],
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("were not checked");
  });
});

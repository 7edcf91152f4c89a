import { describe, expect, it } from "vitest";
import { decideAccess, describeRule, effectiveHints } from "../../../../plugins/policies/access.ts";
import type { AccessRule } from "../../../../plugins/policies/index.ts";

describe("access rules", () => {
  it("fills in MCP's defaults where a tool says nothing", () => {
    expect(effectiveHints({})).toEqual({ readOnly: false, destructive: true, openWorld: true });
    expect(effectiveHints({ readOnlyHint: true })).toEqual({ readOnly: true, destructive: false, openWorld: true });
    expect(effectiveHints({ destructiveHint: false, openWorldHint: false })).toEqual({ readOnly: false, destructive: false, openWorld: false });
  });

  it("deny globs first, then the first rule whose glob and hints match; no match lets the call run", () => {
    const rules: AccessRule[] = [
      { tools: "mcp__*", readOnly: true, action: "allow" },
      { tools: "mcp__*", destructive: true, action: "ask" },
      { tools: "*", openWorld: true, action: "deny" },
    ];
    expect(decideAccess(rules, [], "mcp__fs__read", { readOnlyHint: true })).toEqual({ action: "allow", rule: 0 });
    expect(decideAccess(rules, [], "mcp__fs__write", {})).toEqual({ action: "ask", rule: 1 });
    expect(decideAccess(rules, [], "web_fetch", {})).toEqual({ action: "deny", rule: 2 });
    expect(decideAccess(rules, [], "read", { readOnlyHint: true, openWorldHint: false })).toBeUndefined();
    expect(decideAccess(rules, ["mcp__fs__*"], "mcp__fs__read", { readOnlyHint: true })).toEqual({ action: "deny", rule: -1 });
    expect(describeRule(rules, { action: "ask", rule: 1 })).toBe('policies.rules[1] ({"tools":"mcp__*","destructive":true,"action":"ask"})');
    expect(describeRule(rules, { action: "deny", rule: -1 })).toBe("policies.deny");
  });
});

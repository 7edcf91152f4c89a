/** What changed between two snapshots of a server (version, tools, probe values). */
import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../../../../lib/mcp/state-cache.ts";

describe("diffSnapshots", () => {
  it("reports version changes, lost and new tools, and changed probe values", () => {
    const before = { serverVersion: { name: "kota", version: "2.1" }, tools: ["search", "deps"], extra: { indexed: true } };
    const after = { serverVersion: { name: "kota", version: "2.2" }, tools: ["search", "usages"], extra: { indexed: false } };
    expect(diffSnapshots(before, after)).toEqual([
      "server version changed: kota 2.1 -> kota 2.2",
      "tools no longer offered: deps",
      "new tools: usages",
      "indexed was true, now false",
    ]);
    expect(diffSnapshots(before, before)).toEqual([]);
  });
});

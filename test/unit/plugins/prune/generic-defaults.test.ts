/**
 * The prune and budget plugins are generic: what they know about the kota_* tools comes from the
 * kota preset (presets/kota/prune-policy.ts, budget-policy.ts) as overrides of their defaults.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { budgetDefaults } from "../../../../plugins/budget/config.ts";
import { pruneDefaults } from "../../../../plugins/prune/config.ts";
import { placeholderText } from "../../../../plugins/prune/placeholder.ts";
import { kotaPreset } from "../../../../presets/kota/index.ts";

const root = join(import.meta.dirname, "../../../..");
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));

describe("generic prune and budget", () => {
  it("name no kota tool in their source (the replay's sample sessions are data, recorded with kota)", () => {
    const code = [...sources("plugins/prune"), ...sources("plugins/budget")].filter((f) => !f.includes("/sample/"));
    const named = code.filter((f) => /\bkota_\w+/.test(readFileSync(join(root, f), "utf8")));
    expect(named).toEqual([]);
  });

  it("default to nothing kota-specific; the kota preset's plugins carry the kota values", () => {
    expect(JSON.stringify(pruneDefaults)).not.toContain("kota");
    expect(JSON.stringify(budgetDefaults)).not.toContain("kota");
    const plugins = new Map(kotaPreset.plugins().map((p) => [p.configKey, p.defaults as Record<string, unknown>]));
    expect(plugins.get("prune")).toMatchObject({ snippetTools: ["kota_search"], impactTools: ["kota_impact"], pinImpactSummaries: true });
    expect((plugins.get("prune")!.perTool as Record<string, unknown>).read).toEqual(pruneDefaults.perTool.read);
    expect(Object.keys(plugins.get("budget")!.perTool as object)).toEqual(["kota_search", "kota_deps", "kota_usages", "kota_task_context"]);
  });

  it("write a generic placeholder for a tool without hints", () => {
    expect(placeholderText({ toolName: "kota_search", args: { limit: 5, query: "q" }, chars: 5000, images: 0, isError: false, blobId: undefined })).toBe(
      '(Pruned) kota_search(limit=5, query="q") [5,000 chars] Re-run it narrower.',
    );
  });
});

/**
 * Every list-, record- and object-valued key of every shipped plugin has a decision about what a
 * project file may do with it: trusted (the user's sources only), additive (a project can only add
 * entries), or project-tunable (a project may replace it, because it decides no rule of the user's,
 * nothing that runs, and nothing that leaves the machine or is lost). A new key without a decision
 * fails here, so the question is asked when the key is added.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { presets } from "../../../../presets/index.ts";

/** Keys a project may replace whole, and why that loosens nothing the user chose. */
const PROJECT_TUNABLE: Record<string, string> = {
  "breaker.countCategories": "when a circuit opens for a failing server: resilience tuning, no rule of the user's",
  "breaker.perTool": "per-tool breaker thresholds: resilience tuning",
  "retry.retryOn": "which transient failures are retried; only tools safe to repeat (the user's trusted list) are ever retried",
  "retry.budget": "how many retries of safe tools a window allows",
  "timeout.perTool": "per-tool attempt limits, like timeout.defaultMs a project may set",
  "timeout.perToolTotalMs": "per-tool total deadlines, like timeout.totalMs",
  "blobs.builtinTools": "which of pi's tool outputs are cut to an excerpt; the cut output is kept whole in the cache (retention is trusted)",
  "blobs.perTool": "per-tool cut thresholds",
  "prune.impactTools": "which answers are impact summaries (pinned while pinImpactSummaries is on)",
  "prune.pruneTools": "what is pruned from the context; every pruned output keeps its way back",
  "prune.snippetTools": "what is pruned from the context",
  "prune.pinSkipTools": "what the pin command skips",
  "prune.adaptivePruneTools": "what adaptive mode prunes; pinned, neverPruneTools and protected results stay",
  "prune.readTools": "which tools read a file (stale-read placeholders)",
  "prune.writeTools": "which tools change a file (stale-read placeholders)",
  "prune.perTool": "placeholder wording per tool",
  "prune.perModel": "pruning settings per model",
};

const shipped = [...new Map(presets.flatMap((p) => p.plugins()).map((plugin) => [plugin.configKey, plugin])).values()];

/** Top-level keys whose value is a list, a record or an object, with the decision each plugin declared. */
function structuredKeys(): Array<{ key: string; decision: "trusted" | "additive" | "tunable" | undefined }> {
  const out: Array<{ key: string; decision: "trusted" | "additive" | "tunable" | undefined }> = [];
  for (const plugin of shipped) {
    for (const [name, field] of Object.entries(plugin.schema.shape as Record<string, z.ZodType>)) {
      if (!(field instanceof z.ZodArray || field instanceof z.ZodRecord || field instanceof z.ZodObject)) continue;
      const key = `${plugin.configKey}.${name}`;
      const decision = plugin.trustedKeys.includes(name)
        ? "trusted"
        : plugin.additiveKeys.includes(name)
          ? "additive"
          : key in PROJECT_TUNABLE
            ? "tunable"
            : undefined;
      out.push({ key, decision });
    }
  }
  return out;
}

describe("list and record keys: what a project file may do with each", () => {
  it("every one is trusted, additive or named here as project-tunable with the reason", () => {
    expect(structuredKeys().filter((k) => !k.decision)).toEqual([]);
  });

  it("no tunable entry is stale or also declared trusted or additive", () => {
    const declared = new Map(structuredKeys().map((k) => [k.key, k.decision]));
    for (const key of Object.keys(PROJECT_TUNABLE)) expect([key, declared.get(key)]).toEqual([key, "tunable"]);
  });

  it("the lists that protect the user are additive", () => {
    const additive = structuredKeys()
      .filter((k) => k.decision === "additive")
      .map((k) => k.key)
      .sort();
    expect(additive).toEqual([
      "executionLog.exclude",
      "policies.deny",
      "prune.neverPruneTools",
      "prune.pinTools",
      "prune.protectedFilePatterns",
      "recall.exclude",
      "redact.projectPatterns",
    ]);
  });
});

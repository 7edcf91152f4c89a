/** Text of `/<root> pruning`: the effective settings and what the pruner did lately. */
import type { PruneOptions } from "./config.ts";
import { describeOverrides, type ModelSettings } from "./per-model.ts";
import { pinOnArrival } from "./pins.ts";
import type { SessionPruner } from "./pruner.ts";
import { tokensOf } from "./size.ts";

const n = (v: number) => Math.round(v).toLocaleString("en-US");

/**
 * Multi-line status for one session's pruner (or settings only when no context was seen yet).
 * `model`: the settings in force for the model of the session's last call (`perModel` applied);
 * `folding`: whether the fold plugin runs (its own settings are `/<root> unfold`'s and the fold section's).
 */
export function pruningStatus(config: PruneOptions & { enabled: boolean }, pruner: SessionPruner | undefined, model?: ModelSettings, folding = false): string {
  const options = model?.options ?? config;
  const on = config.enabled && (model?.enabled ?? true);
  const lines = [
    `Pruning: ${on ? "on" : "off"}${model?.model ? ` for model ${model.model}` : ""}`,
    ...(model?.matched.length ? [`  per-model settings (${model.matched.join(", ")}): ${describeOverrides(model.overrides)}`] : []),
    `  keep the last ${options.keepRecentTurns} turn(s); prune ${options.pruneTools.join(", ") || "no tools"} by tool, ${options.snippetTools.join(", ") || "none"} in snippet mode, anything over ${n(options.maxToolChars)} chars`,
    `  never prune: ${options.neverPruneTools.join(", ") || "-"}; pin on arrival: ${[...pinOnArrival(options)].join(", ") || "-"}`,
    options.adaptive
      ? `  adaptive: at ${options.adaptiveEnterPercent}% of the window keep ${options.adaptiveKeepRecentTurns} turn(s), cut at ${n(options.adaptiveMaxToolChars)} chars, also prune ${options.adaptivePruneTools.join(", ")}; back below ${options.adaptiveExitPercent}%`
      : "  adaptive: off",
    `  by meaning: repeated calls ${options.dedup ? "on" : "off"}; stale reads ${options.staleReads ? `on (${options.readTools.join(", ") || "-"} after ${options.writeTools.join(", ") || "-"} or bash)` : "off"}; call arguments over ${options.maxArgChars ? `${n(options.maxArgChars)} chars cut` : "never cut"}; failed calls' arguments ${options.failedArgsAfterTurns ? `cut after ${options.failedArgsAfterTurns} turn(s)` : "kept"}; folding ${folding ? "on (the fold plugin)" : "off"}${options.protectedFilePatterns.length ? `; protected: ${options.protectedFilePatterns.join(", ")}` : ""}`,
    `  prompt cache: ${options.cacheLifetime === "off" ? "expiry not considered" : `entries live ${options.cacheLifetime === "model" ? "as long as the model declares (else 300 s)" : `${n(options.cacheLifetime)} s`}; a request after a longer gap takes every pending step, and pi's cache warming is stopped where the next request rewrites the prompt anyway`}`,
    `  boundary steps: at least ${n(options.minStepTokens)} tokens${options.minStepPercent ? ` and ${options.minStepPercent}% of the prompt` : ""} freed${options.cacheAware ? (options.stepRule === "carry" ? ", and only once carrying the output has cost more than one cache rewrite" : ", and only when the step repays its cache rewrite within the session's expected rest") : ""}; forced at ${options.forceStepPercent}% of the window${options.forceStepFreePercent ? ` when the step frees ${options.forceStepFreePercent}% of the prompt (less nearer the window)` : ""}`,
  ];
  if (model && !model.enabled) {
    lines.push("Nothing is pruned for this model: its context is sent in full.");
    return lines.join("\n");
  }
  if (!pruner?.lastReport) {
    lines.push("No model call seen in this session yet.");
    return lines.join("\n");
  }
  const r = pruner.lastReport;
  lines.push(
    `Last model call (#${r.request}): ${n(r.messages)} messages in ${r.turns} turns, mode ${r.mode} (${r.percentBefore.toFixed(1)}% of the window before pruning)`,
    `  boundary after turn ${r.boundaryTurn} (${pruner.stepCount} step(s)); ${r.placeholders} result(s) pruned${r.argumentCuts ? `, ${r.argumentCuts} message(s) with cut call arguments` : ""}, ${n(r.savedChars)} chars (~${n(tokensOf(r.savedChars))} tokens) saved; sent ~${n(r.sentTokens)} of ~${n(r.rawTokens)} tokens`,
    `  pinned by the user: ${pruner.pinned.size ? [...pruner.pinned.values()].map((p) => `${p.toolName} (${p.toolCallId})`).join(", ") : "-"}`,
  );
  if (r.cacheLifetimeSeconds !== undefined) {
    const w = pruner.warming;
    const last = w.last
      ? ` (last: the next request keeps ${Math.round(w.last.keptShare * 100)}% of the prompt, ${w.last.action === "stop" ? "stopped" : "left to pi"})`
      : "";
    lines.push(
      `  prompt cache: entries live ${n(r.cacheLifetimeSeconds)} s; the last call found it ${r.cold ? "cold (every pending step was free)" : "warm"}; cache warming answered ${w.answered} time(s), stopped ${w.stopped}${last}`,
    );
  }
  if (pruner.actions.length) {
    lines.push("Recent boundary steps (newest last):");
    for (const a of pruner.actions) {
      lines.push(
        `  call #${a.request}: up to turn ${a.turn}, ${a.mode} rules, ${a.results} result(s), ${n(a.savedChars)} chars saved${a.cold ? ", on a cold cache" : ""}`,
      );
      for (const item of a.items) lines.push(`    ${item}`);
    }
  }
  return lines.join("\n");
}

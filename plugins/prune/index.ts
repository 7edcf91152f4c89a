/**
 * `governor:prune` (config key `prune`): keeps long sessions lean without losing anything for good.
 *
 * On every model call (`context` hook, CONTEXT_STAGE.PRUNE; request-only, the session keeps the full history)
 * old tool output is replaced by deterministic placeholders that name the tool, its key arguments and
 * the way back (a `blob_read` call when the blobs plugin stored the output, otherwise how to re-run
 * narrower). The last `keepRecentTurns` turns are never touched (see lib/context/turns.ts for what a turn is),
 * pinned results are never pruned, and a forward-only boundary keeps the provider's prompt cache
 * valid between steps (see pruner.ts). `perModel` switches pruning off or changes its thresholds for
 * the model a request goes to (see per-model.ts). On pi 0.87 and later the pruned results also become
 * pi `context_edit` session entries at each turn end (`contextEdits`, see context-edits.ts). The
 * clock (`cacheLifetime`): a request that finds the provider's cache cold takes its pending step for
 * free (cache-clock.ts), and pi's cache warming (0.87+) is stopped where the next request rewrites
 * the prompt anyway (cache-warming.ts).
 *
 * Commands: `/<root> pin` pins the last meaning-bearing result; `/<root> pruning` shows settings and
 * recent steps. `<root>` is `services.commandRoot` (`kota` in the kota preset, else `governor`).
 */
import { type CacheWarmingAction, type CacheWarmingInfo, CONTEXT_STAGE, definePlugin, type Logger, type Pipeline, RESULT_STAGE } from "../../core/index.ts";
import { FOLDING } from "../../lib/context/index.ts";
import { BLOB_STORE } from "../blobs/index.ts";
import { ArgumentBlobWriter } from "./argument-blobs.ts";
import { answerWarming } from "./cache-warming.ts";
import { contextEditsStatus, registerContextEdits } from "./context-edits-taps.ts";
import { adaptiveGapProblem, pruneCrossCheck, pruneDefaults, type PruneOptions, pruneRenamedKeys, pruneSchema } from "./config.ts";
import { settingsForModel } from "./per-model.ts";
import { lastMeaningBearing, pinOnArrival, pinResult } from "./pins.ts";
import { SessionPruner } from "./pruner.ts";
import { SessionPruners } from "./session-pruners.ts";
import { pruningStatus } from "./status.ts";

export { pruneDefaults, pruneSchema, type PruneOptions } from "./config.ts";
export { PIN_MARKER, USER_PIN_MARKER } from "./pin-marker.ts";
export { PRUNED_PREFIX, type PlaceholderInput, placeholderText } from "./placeholder.ts";
export { SessionPruner } from "./pruner.ts";
// What the session replay (cli/replay/) simulates the plugin with, and its only way into it:
// the reference step settings it compares against, the prompt-cache pricing, recognising a
// placeholder, and a fold the pruner must step for.
export { CACHE_PRICING, CLOCKLESS_STEP_DEFAULTS, PREVIOUS_STEP_DEFAULTS, RESULT_ONLY_PRUNING } from "./config.ts";
export { isPlaceholder } from "./placeholder.ts";
export { hasNewFold } from "../../lib/context/index.ts";

/** Plugin name, as taps and errors show it. */
export const PRUNE_PLUGIN = "governor:prune";

/** The prune plugin factory: `prune()` or `prune({ keepRecentTurns: 3 })`. */
export const prune = definePlugin({
  name: PRUNE_PLUGIN,
  configKey: "prune",
  description: "Replaces old tool output in the model's context with placeholders that say how to get it back; pins, adaptive, prompt-cache aware.",
  schema: pruneSchema,
  defaults: pruneDefaults,
  check: pruneCrossCheck,
  renamedKeys: pruneRenamedKeys,
  // What the user said must stay whole in the model's context (files, tools, pins): a project may add more.
  additiveKeys: ["protectedFilePatterns", "neverPruneTools", "pinTools"],
  optional: [BLOB_STORE, FOLDING],
  apply(pipeline, config, services) {
    const logger = services.logger;
    warnPerModelGaps(config, logger);
    // One pruner per session and per distinct effective options (`perModel`).
    // Cut call arguments go to the blob store (when the blobs plugin runs), each id written once.
    const blobStore = services.maybe(BLOB_STORE);
    const blobWriter = new ArgumentBlobWriter(blobStore, logger);
    // Stored arguments are redacted before their blob id is computed (the marker names that id), the
    // way the store redacts what it writes, so the id is that of the bytes stored.
    const env = { cwd: services.cwd, ...(blobStore ? { blobWriter, redact: (text: string) => blobStore.redact(text) } : {}) };
    const sessions = new SessionPruners(
      (options, store) => new SessionPruner(options, store, logger, env),
      () => services.store(),
    );

    pipeline.hooks.sessionShutdown.tap({ name: PRUNE_PLUGIN }, () => blobWriter.flush());

    const pinned = pinOnArrival(config);
    if (pinned.size) pipeline.hooks.toolResult.tap({ name: PRUNE_PLUGIN, stage: RESULT_STAGE.PIN }, (value) => pinResult(value, pinned));

    // Folding (the fold plugin, when it runs) respects prune's protected paths and kept turns;
    // pruning leaves the messages folds replace out of its sizes.
    const folding = services.maybe(FOLDING);
    folding?.respect({ protectedFilePatterns: config.protectedFilePatterns, keepRecentTurns: config.keepRecentTurns, contextWindow: config.contextWindow });
    pipeline.hooks.context.tap({ name: PRUNE_PLUGIN, stage: CONTEXT_STAGE.PRUNE }, (messages, info) => {
      const settings = settingsForModel(config, info.model);
      const model = settings.model ? { model: settings.model } : {};
      if (!settings.enabled) {
        sessions.skip(info.sessionId, settings);
        pipeline.emit({ type: "custom", source: PRUNE_PLUGIN, name: "context_pruned", data: { disabled: true, ...model, perModel: settings.matched } });
        return undefined;
      }
      const p = sessions.use(info.sessionId, settings);
      const out = p.run(messages, info.usage, folding?.foldedRanges(info.sessionId), info.promptCache);
      pipeline.emit({ type: "custom", source: PRUNE_PLUGIN, name: "context_pruned", data: { ...p.lastReport, ...model } });
      return out === messages ? undefined : out;
    });

    // pi 0.87+: the host's cache warming is stopped where the next request rewrites the prompt anyway (cache-warming.ts).
    pipeline.hooks.cacheWarming.tap({ name: PRUNE_PLUGIN }, (action, info) => answerCacheWarming(pipeline, sessions, action, info));

    // pi 0.87+: what pruning sent also becomes context_edit entries at each turn end (context-edits.ts).
    const edits = registerContextEdits(pipeline, PRUNE_PLUGIN, config.contextEdits !== "off");
    pipeline.registerStatusSection(PRUNE_PLUGIN, "Pruning path", () => contextEditsStatus(config.contextEdits, edits));

    registerCommands(pipeline, config, sessions, { root: services.commandRoot, folding: folding !== undefined });
  },
});

type PruneConfig = PruneOptions & { enabled: boolean };

/**
 * The top level passed pruneCrossCheck; a perModel entry combines with it here. Either way the
 * pruner keeps a gap (adaptiveThresholds).
 */
function warnPerModelGaps(config: PruneConfig, logger: Logger): void {
  for (const [key, entry] of Object.entries(config.perModel)) {
    if (entry.adaptiveEnterPercent === undefined && entry.adaptiveExitPercent === undefined) continue;
    const enter = entry.adaptiveEnterPercent ?? config.adaptiveEnterPercent;
    const exit = entry.adaptiveExitPercent ?? config.adaptiveExitPercent;
    const problem = adaptiveGapProblem(enter, exit);
    if (problem) logger.warn(`prune.perModel["${key}"]: ${problem}; using 90% of the enter threshold`, { enter, exit });
  }
}

/** pi 0.87+: the host's cache warming is stopped where the next request rewrites the prompt anyway (cache-warming.ts). */
function answerCacheWarming(pipeline: Pipeline, sessions: SessionPruners, action: CacheWarmingAction, info: CacheWarmingInfo): CacheWarmingAction | undefined {
  const { pruner, settings } = sessions.current(info.sessionId);
  if (!pruner?.lastReport || !settings?.enabled || settings.options.cacheLifetime === "off") return undefined;
  const answer = answerWarming(action, info, pruner.nextStepRewrite(info.idle), pruner.lastReport.sentTokens);
  pruner.noteWarming(answer);
  pipeline.emit({
    type: "custom",
    source: PRUNE_PLUGIN,
    name: "cache_warming_answered",
    data: {
      action: answer.action ?? action,
      hostAction: info.hostAction,
      idle: info.idle,
      keptShare: answer.keptShare,
      expectedSavings: answer.expectedSavings,
    },
  });
  return answer.action;
}

/** `/<root> pin` and `/<root> pruning`. */
function registerCommands(pipeline: Pipeline, config: PruneConfig, sessions: SessionPruners, o: { root: string; folding: boolean }): void {
  const skip = new Set(config.pinSkipTools);
  pipeline.registerCommand(PRUNE_PLUGIN, `${o.root} pin`, {
    description: "Pin the last meaning-bearing tool result so pruning never removes it",
    handler: (_args, ctx) => {
      const p = sessions.current(ctx.sessionId).pruner;
      const target = p && lastMeaningBearing(p.lastMessages, skip);
      if (!p || !target) {
        ctx.ui.notify("Nothing to pin yet: no tool result in this session's context.", "warning");
        return;
      }
      const added = p.pin(target.toolCallId, target.toolName);
      ctx.ui.notify(
        added
          ? `Pinned the ${target.toolName} result (${target.toolCallId}); it will not be pruned.`
          : `The ${target.toolName} result (${target.toolCallId}) is already pinned.`,
        "info",
      );
    },
  });
  pipeline.registerCommand(PRUNE_PLUGIN, `${o.root} pruning`, {
    description: "Pruning settings and the last pruning actions (what was pruned, bytes saved)",
    handler: (_args, ctx) => {
      const current = sessions.current(ctx.sessionId);
      ctx.ui.notify(pruningStatus(config, current.pruner, current.settings, o.folding), "info");
    },
  });
}

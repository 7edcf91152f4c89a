/**
 * `governor:fold` (config key `fold`): model-driven folding. The `context_fold` tool lets the model
 * fold finished turns into its own summary (originals kept in the blob store when the blobs plugin
 * runs); a context tap replaces each active fold's turns with one summary message (after pruning, at
 * CONTEXT_STAGE.FOLD); a nudge asks the model to fold when the context grows; `/<root> unfold`
 * restores a fold. See README.md.
 *
 * Provides {@link FOLDING} (`fold:ranges`, lib/context): the ranges the folds in force replace in the
 * current context call, which the prune plugin leaves out of its size measures, and the slot where
 * prune hands over the rules folding respects (protected paths, turns kept, default window).
 *
 * The tap works on the history before pruning (captured read-only at CONTEXT_STAGE.FOLD_CAPTURE, before pruning): fold
 * records, ranges, pins and the blob of originals come from what the session holds, not from the
 * placeholders pruning put in; the replacement is applied to the pruned list (same indexes).
 */
import { type AgentMessageLike, CONTEXT_STAGE, definePlugin } from "../../core/index.ts";
import { FOLDING, type FoldingRules, type MessageRanges } from "../../lib/context/index.ts";
import { BLOB_STORE } from "../blobs/index.ts";
import { unfoldCommand } from "./commands.ts";
import { foldDefaults, foldSchema } from "./config.ts";
import { FoldSession } from "./session.ts";
import { contextFoldTool } from "./tool.ts";

export { foldDefaults, foldSchema, type FoldOptions } from "./config.ts";
export { FOLD_TOOL, foldCalls, type ActiveFold, type FoldCall } from "./folds.ts";
export { FOLD_MESSAGE_TYPE } from "./render.ts";
export { NUDGE_KIND, UNFOLD_KIND } from "./records.ts";
export { NUDGE_PREFIX } from "./nudge.ts";
export { SUMMARY_MAX_CHARS, SUMMARY_MIN_CHARS } from "./tool.ts";
export { FOLDING, type FoldingRules, type FoldingService } from "../../lib/context/index.ts";

/** Plugin name, as taps and errors show it. */
export const FOLD_PLUGIN = "governor:fold";
/** Sessions whose folding state is kept in memory at once. */
const MAX_SESSIONS = 8;
/** The rules when no prune plugin hands its own over: nothing protected, prune's default turns and window. */
const DEFAULT_RULES: FoldingRules = { protectedFilePatterns: [], keepRecentTurns: 2, contextWindow: 200_000 };

/** The fold plugin factory: `fold()` or `fold({ nudgePercent: 30 })`. */
export const fold = definePlugin({
  name: FOLD_PLUGIN,
  configKey: "fold",
  description: "Offers the model the context_fold tool: it folds finished turns into its own summary (originals kept), nudged when the context grows.",
  schema: foldSchema,
  defaults: foldDefaults,
  provides: [FOLDING],
  optional: [BLOB_STORE],
  apply(pipeline, config, services) {
    const root = services.commandRoot;
    const logger = services.logger;
    const store = () => services.store();
    let rules = DEFAULT_RULES;
    const sessions = new Map<string, FoldSession>();
    const session = (id: string, create = false): FoldSession | undefined => {
      let s = sessions.get(id);
      if (!s && create) {
        s = new FoldSession({ options: { ...rules, nudgePercent: config.nudgePercent }, cwd: services.cwd, root, store, logger });
        sessions.set(id, s);
        if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      }
      return s;
    };
    const raw = new Map<string, readonly AgentMessageLike[]>();
    const folded = new Map<string, MessageRanges>();

    services.provide(FOLDING, {
      foldedRanges: (sessionId) => folded.get(sessionId) ?? [],
      respect(next) {
        rules = { protectedFilePatterns: [...next.protectedFilePatterns], keepRecentTurns: next.keepRecentTurns, contextWindow: next.contextWindow };
        sessions.clear();
      },
    });

    pipeline.hooks.context.tap({ name: FOLD_PLUGIN, stage: CONTEXT_STAGE.FOLD_CAPTURE }, (messages, info) => {
      raw.set(info.sessionId, messages);
      folded.set(info.sessionId, session(info.sessionId, true)!.foldedRanges(messages));
      return undefined;
    });
    pipeline.hooks.context.tap({ name: FOLD_PLUGIN, stage: CONTEXT_STAGE.FOLD }, (messages, info) => {
      const before = raw.get(info.sessionId) ?? messages;
      raw.delete(info.sessionId);
      folded.delete(info.sessionId);
      const out = session(info.sessionId, true)!.render(before, messages, info.usage?.contextWindow);
      return out === messages ? undefined : (out as AgentMessageLike[]);
    });

    pipeline.registerTool(
      FOLD_PLUGIN,
      contextFoldTool({
        session: (id) => session(id),
        blobs: services.maybe(BLOB_STORE),
        root,
        warn: (m, d) => logger.warn(m, d),
      }),
    );
    pipeline.registerCommand(
      FOLD_PLUGIN,
      `${root} unfold`,
      unfoldCommand(root, (id) => session(id), store),
    );
  },
});

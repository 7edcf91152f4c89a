/**
 * Model-driven folding, a part of the prune plugin (`prune.fold`): the `context_fold` tool, the
 * context tap that replaces each active fold's turns with one summary message (after pruning, at
 * {@link FOLD_STAGE}), the fold nudge, and `/<root> unfold`. See the "Folding" section of the prune
 * README.
 *
 * The tap works on the history before pruning (captured read-only just before CONTEXT_STAGE.PRUNE): fold
 * records, ranges, pins and the blob of originals come from what the session holds, not from the
 * placeholders pruning put in; the replacement is applied to the pruned list (same indexes).
 */
import { type GovernorServices, type Pipeline, CONTEXT_STAGE, type AgentMessageLike } from "../../../core/sdk.ts";
import { BLOB_STORE } from "../../blobs/index.ts";
import { REDACTOR } from "../../redact/index.ts";
import type { PruneOptions } from "../config.ts";
import { unfoldCommand } from "./commands.ts";
import { FoldSession } from "./session.ts";
import { contextFoldTool } from "./tool.ts";

export { FOLD_TOOL, foldCalls, type ActiveFold, type FoldCall } from "./folds.ts";
export { FOLD_MESSAGE_TYPE } from "./render.ts";
export { NUDGE_KIND, UNFOLD_KIND } from "./records.ts";
export { NUDGE_PREFIX } from "./nudge.ts";
export { SUMMARY_MAX_CHARS, SUMMARY_MIN_CHARS } from "./tool.ts";

/** Stage of the folding tap: after pruning, so pruning's boundary and decisions never see a fold. */
export const FOLD_STAGE = CONTEXT_STAGE.PRUNE + 50;
/** Stage of the read-only tap that keeps the history before pruning for the folding tap. */
const CAPTURE_STAGE = CONTEXT_STAGE.PRUNE - 10;
/** Sessions whose folding state is kept in memory at once. */
const MAX_SESSIONS = 8;
const OWNER = "governor:prune";

/**
 * Registers folding on `pipeline` for the prune plugin: call it inside the plugin's apply when
 * `config.fold` is on. Uses the blob store when the blobs plugin provides one (list BLOB_STORE in
 * the plugin's `optional`).
 */
export function registerFolding(pipeline: Pipeline, config: PruneOptions, services: GovernorServices): FoldedRanges {
  const root = services.commandRoot;
  const logger = services.logger;
  const store = () => services.store();
  const sessions = new Map<string, FoldSession>();
  const session = (id: string, create = false): FoldSession | undefined => {
    let s = sessions.get(id);
    if (!s && create) {
      s = new FoldSession({ options: config, cwd: services.cwd, root, store, logger });
      sessions.set(id, s);
      if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    }
    return s;
  };
  const raw = new Map<string, readonly AgentMessageLike[]>();

  const folded = new Map<string, Array<readonly [number, number]>>();
  pipeline.hooks.context.tap({ name: OWNER, stage: CAPTURE_STAGE }, (messages, info) => {
    raw.set(info.sessionId, messages);
    folded.set(info.sessionId, session(info.sessionId, true)!.foldedRanges(messages));
    return undefined;
  });
  pipeline.hooks.context.tap({ name: OWNER, stage: FOLD_STAGE }, (messages, info) => {
    const before = raw.get(info.sessionId) ?? messages;
    raw.delete(info.sessionId);
    folded.delete(info.sessionId);
    const out = session(info.sessionId, true)!.render(before, messages, info.usage?.contextWindow);
    return out === messages ? undefined : (out as AgentMessageLike[]);
  });

  pipeline.registerTool(
    OWNER,
    contextFoldTool({
      session: (id) => session(id),
      blobs: services.maybe(BLOB_STORE),
      redactor: services.maybe(REDACTOR),
      root,
      warn: (m, d) => logger.warn(m, d),
    }),
  );
  pipeline.registerCommand(
    OWNER,
    `${root} unfold`,
    unfoldCommand(root, (id) => session(id), store),
  );
  return (sessionId) => folded.get(sessionId) ?? [];
}

/**
 * The fold ranges [start, end) in force for a session's current context call (indexes of the
 * history before pruning), for pruning's size measures; valid between the capture and fold taps.
 */
export type FoldedRanges = (sessionId: string) => ReadonlyArray<readonly [number, number]>;

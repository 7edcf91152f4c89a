/**
 * Where pruning and folding meet. The fold plugin (plugins/fold) provides {@link FOLDING}; the prune
 * plugin lists it optional and works without it. Neither plugin imports the other: what both need
 * (the fold tool's name, how a fold shows in the history, the service) is here.
 */
import { type AgentMessageLike, defineService } from "../../core/index.ts";

/** The model's fold tool name. */
export const FOLD_TOOL = "context_fold";

/** Message ranges [start, end) of a message list, ascending. */
export type MessageRanges = ReadonlyArray<readonly [number, number]>;

/** The pruning rules folding must respect, as prune hands them over when both plugins run. */
export interface FoldingRules {
  /** Globs of paths whose calls are never folded (prune's `protectedFilePatterns`). */
  protectedFilePatterns: readonly string[];
  /** Turns at the end that pruning keeps: the fold nudge never proposes them. */
  keepRecentTurns: number;
  /** Context window in tokens when pi does not report one. */
  contextWindow: number;
}

/** What the fold plugin offers the prune plugin. */
export interface FoldingService {
  /**
   * The ranges the folds in force replace in the session's current context call (indexes of the
   * history before pruning), ascending; empty when the history holds no fold. Valid during the
   * session's context call: pruning leaves them out of its size measures, since they are not sent.
   */
  foldedRanges(sessionId: string): MessageRanges;
  /** Makes folding respect prune's rules (called by prune when it is applied; default: none protected, 2 turns kept, 200000 tokens). */
  respect(rules: FoldingRules): void;
}

/** The folding service (`fold:ranges`), provided by the fold plugin. */
export const FOLDING = defineService<FoldingService>("fold:ranges", { providedBy: "governor:fold (fold() from pi-governor/plugins/fold/index.ts)" });

/**
 * Whether messages from index `seen` on hold a fold (a `context_fold` result that is not an error):
 * the fold applies from this request, which rewrites the prompt from its first folded turn anyway.
 */
export function hasNewFold(messages: readonly AgentMessageLike[], seen: number): boolean {
  for (let i = Math.min(seen, messages.length); i < messages.length; i++) {
    const m = messages[i] as { role?: unknown; toolName?: unknown; isError?: unknown };
    if (m.role === "toolResult" && m.toolName === FOLD_TOOL && m.isError !== true) return true;
  }
  return false;
}

/**
 * The folding state of one session: the last message list its context hook saw (what the tool
 * validates against and the unfold command lists), the fold messages built so far, and which
 * invalid folds were already logged. Everything else is derived from the messages and the session
 * records on each call.
 */
import type { AgentMessageLike, Logger, SessionStore } from "../../core/index.ts";
import { estimateTokens as tokensOf } from "../../lib/size/index.ts";
import { type FoldingRules, loadPins, protectedPathMatcher } from "../../lib/context/index.ts";
import type { ActiveFold } from "./folds.ts";
import { HistoryIndex } from "./history-index.ts";
import { loadNudges, loadUnfolded, NUDGE_KIND } from "./records.ts";
import { applyFolds, FoldMessages } from "./render.ts";
import { applyNudges, nudgeFor } from "./nudge.ts";
import type { TurnMap } from "./turn-map.ts";

/** What folding needs from the plugin around it. */
export interface FoldEnv {
  /** `nudgePercent` from the fold config; the rest is what prune hands over (FoldingRules). */
  options: FoldingRules & { nudgePercent: number };
  cwd: string;
  root: string;
  store: () => SessionStore;
  logger: Logger;
}

/** A message list analysed for folding. */
export interface FoldView {
  messages: readonly AgentMessageLike[];
  map: TurnMap;
  active: ActiveFold[];
}

/** One session's folding state. */
export class FoldSession {
  /** The message list (before pruning) of the last context call. */
  last: readonly AgentMessageLike[] = [];
  /**
   * Folds the tool accepted since that call (ranges in `last`): two calls in one assistant message
   * are checked against each other, not only against the folds the history already holds.
   */
  readonly pending: ActiveFold[] = [];
  private readonly built = new FoldMessages();
  private readonly warned = new Set<string>();
  /** The history as folding reads it, updated with what each call adds (history-index.ts). */
  private readonly index = new HistoryIndex();
  private readonly isProtected: (path: string) => boolean;

  constructor(private readonly env: FoldEnv) {
    this.isProtected = protectedPathMatcher(env.options.protectedFilePatterns, env.cwd);
  }

  /**
   * Message ranges [start, end) of the folds in force for `messages` (the history before pruning),
   * ascending: what pruning leaves out of its size measures, since those messages are not sent.
   * Empty when the history holds no fold.
   */
  foldedRanges(messages: readonly AgentMessageLike[]): Array<readonly [number, number]> {
    this.sync(messages);
    if (!this.index.hasFoldResult) return [];
    return this.foldsOf(messages)
      .active.map((f) => [f.start, f.end] as const)
      .sort((a, b) => a[0] - b[0]);
  }

  /**
   * `messages` mapped by turn with the folds in force; invalid folds are logged once each. Reads
   * the session's pins again (the tool and the commands call it between context calls).
   */
  view(messages: readonly AgentMessageLike[] = this.last): FoldView {
    this.sync(messages, true);
    return this.foldsOf(messages);
  }

  /** The folds in force for the synced `messages`; invalid folds are logged once each. */
  private foldsOf(messages: readonly AgentMessageLike[]): FoldView {
    const { active, invalid } = this.index.foldsInForce(loadUnfolded(this.env.store()));
    for (const bad of invalid) {
      const key = `${bad.id}\n${bad.reason}`;
      if (this.warned.has(key)) continue;
      this.warned.add(key);
      this.env.logger.warn("context_fold ignored: its range is not valid in this context", { foldId: bad.id, reason: bad.reason });
    }
    return { messages, map: this.index.map, active };
  }

  /**
   * Brings the index to `messages`; within one context call (the capture tap, then render) the
   * same list is read once unless `force`.
   */
  private sync(messages: readonly AgentMessageLike[], force = false): void {
    if (!force && this.index.messages === messages && this.index.length === messages.length) return;
    this.index.sync(messages, { userPins: loadPins(this.env.store()), isProtected: this.isProtected });
  }

  /**
   * The context to send: `pruned` (the pruned list, same indexes as `raw`) with persisted nudges,
   * maybe a new nudge, and the active folds applied. Returns `pruned` itself when nothing changes.
   */
  render(raw: readonly AgentMessageLike[], pruned: readonly AgentMessageLike[], contextWindow: number | undefined): readonly AgentMessageLike[] {
    // Another stage that changed the list's shape: fold what is being sent, never mix indexes.
    const base = raw.length === pruned.length ? raw : pruned;
    this.last = base;
    this.pending.length = 0;
    const store = this.env.store();
    const nudges = loadNudges(store);
    const window = contextWindow || this.env.options.contextWindow;
    this.sync(base);
    const rawChars = this.index.chars;
    // The common case: no fold, no nudge, and below the nudge threshold.
    if (!nudges.length && (tokensOf(rawChars) / window) * 100 < this.env.options.nudgePercent && !this.index.hasFoldResult) return pruned;
    const v = this.foldsOf(base);
    const foldedChars = v.active.reduce((sum, f) => sum + f.chars, 0);
    const percent = (tokensOf(rawChars - foldedChars) / window) * 100;
    const nudge = nudgeFor({
      messages: base,
      map: v.map,
      active: v.active,
      nudges,
      percent,
      foldNudgePercent: this.env.options.nudgePercent,
      keepRecentTurns: this.env.options.keepRecentTurns,
      keyOf: this.index.keyOf,
      turnOf: this.index.turnOf,
    });
    if (nudge) {
      store.append(NUDGE_KIND, { ...nudge });
      nudges.push(nudge);
      this.env.logger.info("nudged the model to fold finished turns", { text: nudge.text });
    }
    const nudged = applyNudges(pruned, v.map, nudges, this.index.turnOf);
    this.built.keepOnly(new Set(v.active.map((f) => f.call.id)));
    if (!v.active.length) return nudged;
    return applyFolds(nudged, v.active, (fold) => this.built.message(fold, base, v.map, this.env.root));
  }
}

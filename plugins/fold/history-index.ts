/**
 * What folding reads of the history on every context call, kept up to date incrementally: the
 * turn map (turn-map.ts), the fold calls, each message's size as running sums, and each turn's key
 * (the nudges are keyed by it). pi hands every call a fresh copy of a history that only grows, so
 * the messages seen before are recognised by pi's identity (identity.ts: role, timestamp, tool
 * call id; never the content), found by binary search (see `firstChange`), and only what changed
 * is read again: the turn holding the first changed message and everything after it. The cost of a
 * call is the new messages and a logarithm of the history.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { messageChars } from "../../lib/size/index.ts";
import { MessageIdentities, turnKey } from "../../lib/context/index.ts";
import { activeFolds, type ActiveFold, foldCallsOf } from "./folds.ts";
import { type FoldGuards, type TurnMap, TurnMapBuilder } from "./turn-map.ts";

/** The folds in force and the folds whose range is no longer valid (with why). */
export interface FoldsInForce {
  active: ActiveFold[];
  invalid: Array<{ id: string; reason: string }>;
}

/** One session's history, indexed for folding. */
export class HistoryIndex {
  private readonly identities = new MessageIdentities();
  private readonly builder = new TurnMapBuilder();
  /** `sums[i]`: characters of messages [0, i). */
  private readonly sums: number[] = [0];
  /** Key of each turn's user message (lib/context turnKey), and the first turn with each key. */
  private readonly keys: string[] = [];
  private readonly turnByKey = new Map<string, number>();
  private pins = "";
  /** The folds last computed, and what they depend on. */
  private folds: { key: string; dependsFrom: number; value: FoldsInForce } | undefined;
  /** The lowest index a sync mapped again from since the folds were last computed. */
  private remappedFrom = 0;
  /** The list last synced. */
  messages: readonly AgentMessageLike[] = [];

  /** Brings the index to `messages` (the history before pruning); `guards` as the turn map needs them. */
  sync(messages: readonly AgentMessageLike[], guards: FoldGuards): void {
    let changed = this.firstChange(messages);
    for (let i = changed; i < messages.length; i++) this.identities.record(i, messages[i]!);
    this.identities.truncate(messages.length);
    // A user pin changes what may be folded in any turn: map everything again (rare).
    const pins = [...guards.userPins.keys()].join("\n");
    if (pins !== this.pins) {
      this.pins = pins;
      changed = 0;
    }
    const from = this.builder.update(messages, changed, guards);
    this.remappedFrom = Math.min(this.remappedFrom, from);
    this.messages = messages;
    this.length = messages.length;
    const sums = this.sums;
    sums.length = Math.min(sums.length, changed + 1);
    for (let i = sums.length - 1; i < messages.length; i++) sums[i + 1] = sums[i]! + messageChars(messages[i]!);
    // Turn keys: drop those of the turns mapped again, then key the new turns.
    const turns = this.builder.map.turns;
    let kept = this.keys.length;
    while (kept > 0 && (kept > turns.length || turns[kept - 1]!.start >= from)) kept--;
    for (let t = this.keys.length - 1; t >= kept; t--) if (this.turnByKey.get(this.keys[t]!) === t) this.turnByKey.delete(this.keys[t]!);
    this.keys.length = kept;
    for (let t = kept; t < turns.length; t++) {
      const key = turnKey(messages[turns[t]!.start]!);
      this.keys.push(key);
      if (!this.turnByKey.has(key)) this.turnByKey.set(key, t);
    }
  }

  /**
   * The first index whose message is not the one synced there last time, by binary search over
   * pi's identity: pi changes a history only at its end (new messages; a branch switch replaces a
   * suffix) or from its start (compaction), never in the middle, so the messages that match form a
   * prefix. A few identity reads per call instead of one per message: with pi's fresh copies each
   * read of a message is a cache miss, and the pruner already pays one pass over them.
   */
  private firstChange(messages: readonly AgentMessageLike[]): number {
    let lo = 0;
    let hi = Math.min(messages.length, this.identities.length);
    // Invariant: every index below lo matches; hi is past the last candidate.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.identities.matches(mid, messages[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The turn map of the synced list. */
  get map(): TurnMap {
    return this.builder.map;
  }

  /** Messages in the synced list. */
  length = 0;

  /** Characters of the synced list (core size measure). */
  get chars(): number {
    return this.sums[this.length]!;
  }

  /** Whether the synced list holds a `context_fold` result. */
  get hasFoldResult(): boolean {
    return this.builder.foldResults.size > 0;
  }

  /** Characters of messages [start, end). */
  readonly charsOf = (start: number, end: number): number => this.sums[end]! - this.sums[start]!;

  /** turnKey of turn `t`'s user message. */
  readonly keyOf = (t: number): string => this.keys[t]!;

  /** The first turn whose user message has `key`. */
  readonly turnOf = (key: string): number | undefined => this.turnByKey.get(key);

  /**
   * The folds in force under the user's `unfolded` ids. Reused while the fold calls, the unfolded
   * ids and every turn before the last fold call's turn are what they were (a fold's validity and
   * size depend only on the turns before its call).
   */
  foldsInForce(unfolded: ReadonlySet<string>): FoldsInForce {
    const calls = foldCallsOf(this.builder, this.messages);
    const key = `${[...unfolded].join("\n")}\u0000${calls.map((c) => `${c.id}\n${c.callMessage}\n${c.from}\n${c.to}\n${c.blobId ?? ""}\n${c.summary}`).join("\u0001")}`;
    const cached = this.folds;
    if (cached && cached.key === key && this.remappedFrom >= cached.dependsFrom) return cached.value;
    const value = activeFolds(calls, this.builder.map, unfolded, this.charsOf);
    const turns = this.builder.map.turns;
    let dependsFrom = 0;
    for (const c of calls) {
      const place = this.builder.map.calls.get(c.id);
      const start = place && place.turn >= 0 ? turns[place.turn]!.start : 0;
      dependsFrom = Math.max(dependsFrom, start);
    }
    this.folds = { key, dependsFrom, value };
    this.remappedFrom = Number.POSITIVE_INFINITY;
    return value;
  }
}

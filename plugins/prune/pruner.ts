/**
 * The pruning engine for one session: a per-message cache, a boundary that only moves forward, the
 * adaptive mode with hysteresis, and pins. `run` is what the `context` tap calls on every model call.
 *
 * Cache-awareness. Providers bill a cached prompt prefix at a tenth of fresh input and a rewritten
 * prefix at 1.25x. Pruning a little on every call rewrites the cache on every call. So everything
 * before a *boundary* is pruned with decisions frozen when the boundary passed it, and the boundary
 * moves (a "step", always to the start of the oldest protected turn) only when step-rule.ts says it
 * pays: it frees at least `minStepTokens` and carrying the output has cost more than one cache
 * rewrite, or the prompt is above `forceStepPercent` of the window. Steps are persisted, so the
 * boundary survives `/reload` and is never recomputed from scratch.
 */
import type { AgentMessageLike, ContextInfo, Logger, SessionStore } from "../../core/index.ts";
import { type ModeRules, type PruneMode, type PruneOptions, rulesFor } from "./config.ts";
import { type CallInfo, type Decision, decide, isPinnedInMessage } from "./decide.ts";
import { fingerprint, fnv1a } from "./fingerprint.ts";
import { MessageIdentities } from "./identity.ts";
import { withPinMarker } from "./pin-marker.ts";
import { loadPins, loadSteps, PIN_KIND, type PinRecord, STEP_KIND, type StepRecord } from "./records.ts";
import { messageChars, tokensOf } from "./size.ts";
import { decideStep, rewriteTokens } from "./step-rule.ts";
import { protectedFrom, startsTurn } from "./turns.ts";

/** What the pruner remembers about the message at one index. */
interface Facts {
  fp: string;
  chars: number;
  /** Content blocks, as the provider counts them for its cache lookback. */
  blocks: number;
  /** Set for messages that start a turn. */
  turnKey: string | undefined;
  decisions: Partial<Record<PruneMode, Decision>>;
  /** The message with the user-pin marker, built once. */
  pinView?: AgentMessageLike;
}

/** One boundary step, as `/governor pruning` lists it. */
export interface StepAction {
  request: number;
  turn: number;
  mode: PruneMode;
  results: number;
  savedChars: number;
  /** The first few placeholders of the step. */
  items: string[];
}

/** What the last call did. */
export interface CallReport {
  request: number;
  messages: number;
  turns: number;
  mode: PruneMode;
  /** Context use before pruning, percent of the window. */
  percentBefore: number;
  boundaryTurn: number;
  placeholders: number;
  savedChars: number;
  rawTokens: number;
  sentTokens: number;
  stepped: boolean;
}

const MAX_ACTIONS = 10;

/** A stable key for a turn-starting user message: its timestamp and a hash of its text. */
export function turnKey(message: AgentMessageLike): string {
  const content = (message as { content?: unknown }).content;
  const text = typeof content === "string" ? content : JSON.stringify(content ?? "");
  return `u:${String((message as { timestamp?: unknown }).timestamp ?? "")}:${fnv1a(text)}`;
}

/** The pruning state and engine of one session. */
export class SessionPruner {
  private facts: Facts[] = [];
  private readonly calls = new Map<string, CallInfo>();
  private readonly steps: StepRecord[];
  private readonly pins: Map<string, PinRecord>;
  private readonly rules: Record<PruneMode, ModeRules>;
  private tight = false;
  /** Cached-read cost (token units) paid so far for carrying output the next step would prune. */
  private carry = 0;
  private requests = 0;
  private last: readonly AgentMessageLike[] = [];
  /** Lowest index whose facts were (re)built in the current call (n when none). */
  private changedFrom = 0;
  /** pi's identity of each message of the last call (see `gatherFacts`). */
  private readonly identities = new MessageIdentities();
  /** prefixChars[i]: chars of messages [0, i) of the last call (see `gatherFacts`). */
  private readonly prefixChars: number[] = [0];
  /** Indexes of the turn-starting messages of the last call, ascending (see `gatherFacts`). */
  private readonly turnStarts: number[] = [];
  /** Bumped by every pin: a rendered prefix depends on the pins. */
  private pinsVersion = 0;
  /**
   * The rendered pruned prefix of the last call: what `render` and `savedBefore` would compute for
   * [0, boundary). Reused while no message before the boundary changed, and extended (not rebuilt)
   * when the boundary steps forward, so a call costs in proportion to the new messages, not the history.
   */
  private prefix: RenderedPrefix | undefined;
  /** The last resolved steps, by the number of steps they were resolved for. */
  private resolvedCache: { steps: number; resolved: Array<{ index: number; mode: PruneMode }> } | undefined;
  /** Recent steps, newest last. */
  readonly actions: StepAction[] = [];
  lastReport: CallReport | undefined;

  constructor(
    private readonly options: PruneOptions,
    private readonly store: () => SessionStore,
    private readonly logger?: Logger,
  ) {
    this.rules = { normal: rulesFor(options, "normal"), tight: rulesFor(options, "tight") };
    const s = store();
    this.steps = loadSteps(s);
    this.pins = loadPins(s);
  }

  /** The messages of the last call (for the pin command). */
  get lastMessages(): readonly AgentMessageLike[] {
    return this.last;
  }

  /** Whether adaptive (tight) mode is on. */
  get mode(): PruneMode {
    return this.tight ? "tight" : "normal";
  }

  /** Boundary steps taken in this session (persisted ones included). */
  get stepCount(): number {
    return this.steps.length;
  }

  /** User pins of this session. */
  get pinned(): ReadonlyMap<string, PinRecord> {
    return this.pins;
  }

  /** Pins a result by tool call id and persists the pin. Returns false when it was pinned already. */
  pin(toolCallId: string, toolName: string): boolean {
    if (this.pins.has(toolCallId)) return false;
    const record = { toolCallId, toolName };
    this.pins.set(toolCallId, record);
    this.pinsVersion++;
    this.store().append(PIN_KIND, { ...record });
    return true;
  }

  /** Prunes one outgoing context. Returns `messages` itself when nothing changes. */
  run(messages: readonly AgentMessageLike[], usage?: ContextInfo["usage"]): AgentMessageLike[] {
    this.requests++;
    this.last = messages;
    const n = messages.length;
    const { rawChars, starts } = this.gatherFacts(messages);

    const window = usage?.contextWindow || this.options.contextWindow;
    const rawTokens = tokensOf(rawChars);
    // Measured BEFORE pruning: pi's own usage figure reflects the last (already pruned) request, and a
    // rule that reads the pruned size flips off as soon as it has pruned, then on again.
    const percentBefore = (Math.max(rawTokens, usage?.tokens ?? 0) / window) * 100;
    this.updateMode(percentBefore);
    const rules = this.rules[this.mode];

    let resolved = this.resolveSteps(starts);
    let boundary = resolved.length ? resolved[resolved.length - 1]!.index : 0;
    const candidate = protectedFrom(starts, rules.keepRecentTurns);
    let stepped = false;
    if (candidate > boundary) {
      let pendingChars = 0;
      let firstChange = -1;
      for (let i = boundary; i < candidate; i++) {
        const saved = this.applied(i, messages[i]!, rules.mode).savedChars;
        if (saved > 0 && firstChange < 0) firstChange = i;
        pendingChars += saved;
      }
      const savedBefore = this.renderPrefix(messages, resolved, boundary).savedChars;
      const rewrite = firstChange < 0 ? 0 : rewriteTokens(this.facts, firstChange, rawChars - savedBefore - pendingChars, pendingChars);
      const decision = decideStep({ pending: tokensOf(pendingChars), sent: tokensOf(rawChars - savedBefore), rewrite, window, carry: this.carry }, this.options);
      this.carry = decision.carry;
      if (decision.step) {
        this.step(messages, starts, boundary, candidate, rules.mode, pendingChars);
        resolved = [...resolved, { index: candidate, mode: rules.mode }];
        this.resolvedCache = { steps: this.steps.length, resolved };
        boundary = candidate;
        stepped = true;
      }
    }

    const { out, placeholders, savedChars } = this.render(messages, resolved, boundary);
    this.lastReport = {
      request: this.requests,
      messages: n,
      turns: starts.length,
      mode: this.mode,
      percentBefore,
      boundaryTurn: starts.filter((s) => s < boundary).length,
      placeholders,
      savedChars,
      rawTokens,
      sentTokens: tokensOf(rawChars - savedChars),
      stepped,
    };
    return out ?? (messages as AgentMessageLike[]);
  }

  // ---- Facts: recognising the messages of this call, sizes and turn starts ----

  /**
   * Facts for every message of `messages`, the total size and the turn starts. Sets `changedFrom`.
   * Each message is visited once to recognise it (its identity: no content read); sizes and turn
   * starts of the unchanged prefix come from the last call, so only new or changed messages are summed.
   */
  private gatherFacts(messages: readonly AgentMessageLike[]): { rawChars: number; starts: number[] } {
    const n = messages.length;
    this.changedFrom = n;
    this.identities.scan(messages, (i, m) => this.factsAt(i, m));
    this.facts.length = n;
    // The sums and starts of the last call hold up to the first changed (or removed) message.
    const valid = Math.min(this.changedFrom, this.prefixChars.length - 1);
    const sums = this.prefixChars;
    const starts = this.turnStarts;
    sums.length = valid + 1;
    while (starts.length && starts[starts.length - 1]! >= valid) starts.pop();
    for (let i = valid; i < n; i++) {
      const f = this.facts[i]!;
      sums.push(sums[i]! + f.chars);
      if (f.turnKey !== undefined) starts.push(i);
    }
    return { rawChars: sums[n]!, starts };
  }

  /** Facts for a message not recognised by its identity: the same (by fingerprint) or rebuilt. */
  private factsAt(i: number, m: AgentMessageLike): void {
    const old = this.facts[i];
    const fp = fingerprint(m);
    // Not recorded on an identity match (gatherFacts): pi sends a fresh deep copy every call, and
    // storing each copy costs a GC write barrier and a promotion per message.
    this.identities.record(i, m);
    if (old && old.fp === fp) return;
    if (i < this.changedFrom) this.changedFrom = i;
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type?: string; id?: unknown; name?: unknown; arguments?: unknown }>) {
        if (b.type === "toolCall" && typeof b.id === "string") this.calls.set(b.id, { name: String(b.name), args: (b.arguments as Record<string, unknown>) ?? {} });
      }
    }
    const blocks = Array.isArray(m.content) ? Math.max(1, m.content.length) : 1;
    this.facts[i] = { fp, chars: messageChars(m), blocks, turnKey: startsTurn(m) ? turnKey(m) : undefined, decisions: {} };
  }

  private updateMode(percent: number): void {
    if (!this.options.adaptive) {
      this.tight = false;
      return;
    }
    const enter = this.options.adaptiveEnterPercent;
    const exit = Math.min(this.options.adaptiveExitPercent, enter * 0.9);
    if (!this.tight && percent >= enter) this.tight = true;
    else if (this.tight && percent < exit) this.tight = false;
  }

  /** Boundary steps mapped to indexes of this message list, ascending. Steps whose turn is gone are skipped. */
  private resolveSteps(starts: readonly number[]): Array<{ index: number; mode: PruneMode }> {
    if (!this.steps.length) return [];
    // Same steps, and no message up to the last one's turn changed: the same indexes (no pass over every turn).
    const cached = this.resolvedCache;
    if (cached && cached.steps === this.steps.length && cached.resolved.length === this.steps.length && this.changedFrom > cached.resolved[cached.resolved.length - 1]!.index) return cached.resolved;
    const resolved = this.resolveStepsFresh(starts);
    this.resolvedCache = { steps: this.steps.length, resolved };
    return resolved;
  }

  private resolveStepsFresh(starts: readonly number[]): Array<{ index: number; mode: PruneMode }> {
    const byKey = new Map<string, number[]>();
    for (const s of starts) {
      const key = this.facts[s]!.turnKey!;
      (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(s);
    }
    const out: Array<{ index: number; mode: PruneMode }> = [];
    let prev = -1;
    for (const step of this.steps) {
      const index = byKey.get(step.key)?.find((s) => s > prev);
      if (index === undefined) continue;
      out.push({ index, mode: step.mode });
      prev = index;
    }
    return out;
  }

  /** The decision for message i under `mode`, pins applied. */
  private applied(i: number, m: AgentMessageLike, mode: PruneMode): Decision {
    const f = this.facts[i]!;
    if (m.role !== "toolResult") return NO_CHANGE;
    if (this.pins.has(String((m as { toolCallId?: unknown }).toolCallId))) return NO_CHANGE;
    return (f.decisions[mode] ??= decide(m, this.rules[mode], this.calls));
  }

  private step(messages: readonly AgentMessageLike[], starts: readonly number[], from: number, to: number, mode: PruneMode, pendingChars: number): void {
    const record: StepRecord = { key: this.facts[to]!.turnKey!, mode, turn: starts.indexOf(to) + 1, freedTokens: tokensOf(pendingChars) };
    this.steps.push(record);
    this.store().append(STEP_KIND, { ...record });
    const items: string[] = [];
    let results = 0;
    for (let i = from; i < to; i++) {
      const d = this.applied(i, messages[i]!, mode);
      if (!d.replacement) continue;
      results++;
      if (items.length < 5 && d.summary) items.push(d.summary.length > 240 ? `${d.summary.slice(0, 239)}…` : d.summary);
    }
    this.actions.push({ request: this.requests, turn: record.turn, mode, results, savedChars: pendingChars, items });
    if (this.actions.length > MAX_ACTIONS) this.actions.shift();
    this.logger?.debug("pruning boundary moved", { turn: record.turn, mode, results, freedTokens: record.freedTokens });
  }

  private render(messages: readonly AgentMessageLike[], resolved: ReadonlyArray<{ index: number; mode: PruneMode }>, boundary: number) {
    const prefix = this.renderPrefix(messages, resolved, boundary);
    if (!prefix.replaced.length) return { out: undefined, placeholders: 0, savedChars: 0 };
    const out = messages.slice();
    for (const [i, next] of prefix.replaced) out[i] = next;
    return { out, placeholders: prefix.placeholders, savedChars: prefix.savedChars };
  }

  /**
   * The pruned prefix [0, boundary): replacements, placeholders and chars saved. Cached: reused when
   * nothing before the boundary changed, extended over [old boundary, boundary) when the boundary
   * moved forward and the earlier steps are the same; rebuilt otherwise (a pin, an edited history).
   */
  private renderPrefix(messages: readonly AgentMessageLike[], resolved: ReadonlyArray<{ index: number; mode: PruneMode }>, boundary: number): RenderedPrefix {
    const key = resolved.map((r) => `${r.index}:${r.mode}`);
    const cached = this.prefix;
    let from = 0;
    let into: RenderedPrefix = { boundary: 0, key: [], pinsVersion: this.pinsVersion, replaced: [], placeholders: 0, savedChars: 0 };
    if (cached && cached.pinsVersion === this.pinsVersion && this.changedFrom >= Math.min(cached.boundary, boundary) && cached.boundary <= boundary && cached.key.length <= key.length && cached.key.every((k, j) => k === key[j])) {
      // The messages before the cached boundary are the same, and so are the steps covering them.
      if (cached.boundary === boundary && cached.key.length === key.length) return cached;
      from = cached.boundary;
      into = { ...cached, boundary, key, replaced: cached.replaced.slice() };
    }
    let s = 0;
    while (s < resolved.length && resolved[s]!.index <= from) s++;
    for (let i = from; i < boundary; i++) {
      while (resolved[s]!.index <= i) s++;
      const m = messages[i]!;
      if (m.role !== "toolResult") continue;
      let next: AgentMessageLike = m;
      const id = String((m as { toolCallId?: unknown }).toolCallId);
      if (this.pins.has(id)) {
        if (!isPinnedInMessage(m)) {
          const f = this.facts[i]!;
          next = f.pinView ??= withPinMarker(m, "user");
        }
      } else {
        const d = this.applied(i, m, resolved[s]!.mode);
        if (d.replacement) {
          next = d.replacement;
          into.placeholders++;
          into.savedChars += d.savedChars;
        }
      }
      if (next !== m) into.replaced.push([i, next]);
    }
    into.boundary = boundary;
    into.key = key;
    this.prefix = into;
    return into;
  }
}

/** The pruned prefix of a message list up to a boundary (see `renderPrefix`). */
interface RenderedPrefix {
  boundary: number;
  /** The resolved steps (`index:mode`) it was rendered with. */
  key: string[];
  pinsVersion: number;
  /** Replaced messages by index, ascending. */
  replaced: Array<[number, AgentMessageLike]>;
  placeholders: number;
  savedChars: number;
}

const NO_CHANGE: Decision = Object.freeze({ replacement: undefined, savedChars: 0 });

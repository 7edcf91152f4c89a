/**
 * The pruning engine for one session: a per-message cache, a boundary that only moves forward, the
 * adaptive mode with hysteresis, and pins. `run` is what the `context` tap calls on every model call.
 * It orchestrates and decides nothing about a message itself: what each message before the boundary
 * becomes is the one decision entry's (judge.ts `MessageJudge.decide`); the pruner walks the prefix,
 * applies the decisions, takes the steps (step-rule.ts says when) and persists steps and pins.
 *
 * Cache-awareness. Providers bill a cached prompt prefix at a tenth of fresh input and a rewritten
 * prefix at 1.25x. Pruning a little on every call rewrites the cache on every call. So everything
 * before a *boundary* is pruned with decisions frozen when the boundary passed it, and the boundary
 * moves (a "step", always to the start of the oldest protected turn) only when step-rule.ts says it
 * pays for its cache rewrite within the session's expected rest, or the prompt is above
 * `forceStepPercent` of the window. Steps are persisted, so the
 * boundary survives `/reload` and is never recomputed from scratch.
 *
 * The clock (cache-clock.ts): a request that comes longer than the cache lifetime after the previous
 * one (or the host's last warming refresh) finds the provider's cache cold and is written in full,
 * so its step costs nothing extra and is taken; cache entries older than the lifetime are not counted
 * on in the rewrite estimates.
 */
import type { AgentMessageLike, ContextInfo, Logger, PromptCacheInfo, SessionStore } from "../../core/index.ts";
import { DEFAULT_CACHE_LIFETIME_SECONDS, type RequestCache, requestCache } from "./cache-clock.ts";
import type { WarmingAnswer } from "./cache-warming.ts";
import { adaptiveThresholds, type ModeRules, type PruneMode, type PruneOptions, rulesFor } from "./config.ts";
import type { ArgumentBlobWriter } from "./argument-blobs.ts";
import type { CallInfo } from "./decide.ts";
import { hasNewFold, type MessageRanges, MessageIdentities, protectedFrom, startsTurn, turnKey } from "../../lib/context/index.ts";
import { fingerprint } from "./fingerprint.ts";
import { type Facts, MessageJudge } from "./judge.ts";
import { loadPins, loadSteps, PIN_KIND, type PinRecord, STEP_KIND, type StepRecord } from "./records.ts";
import { messageChars, tokensOf } from "./size.ts";
import { decideStep, rewriteEstimates } from "./step-rule.ts";

/** One boundary step, as `/governor pruning` lists it. */
export interface StepAction {
  request: number;
  turn: number;
  mode: PruneMode;
  results: number;
  savedChars: number;
  /** The first few placeholders of the step. */
  items: string[];
  /** Taken on a request that found the provider's cache cold (no extra cache write). */
  cold?: boolean;
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
  /** Assistant messages sent with cut call arguments. */
  argumentCuts: number;
  savedChars: number;
  rawTokens: number;
  sentTokens: number;
  stepped: boolean;
  /** The request found the provider's cache cold (longer than its lifetime since its last use). */
  cold?: boolean;
  /** The cache lifetime in force (seconds), unless `cacheLifetime` is "off". */
  cacheLifetimeSeconds?: number;
}

const MAX_ACTIONS = 10;
/** Recent request ends kept for the rewrite estimate: more than the lookback's blocks ever span. */
const MAX_REQUEST_ENDS = 64;

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
  /** Recent share of turns that could step within the provider's lookback (see StepInput.cheapShare). */
  private cheapShare = 0;
  private lastCandidate = -1;
  /** Message counts of the recent calls, ascending: where the provider wrote its cache entries. */
  private readonly requestEnds: number[] = [];
  /** The time of each of `requestEnds` (ms; 0 when unknown). */
  private readonly requestEndTimes: number[] = [];
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
   * Rendered pruned prefixes (the current boundary's and the next step's preview), reused while no
   * message before their boundary changed, so a call costs in proportion to the new messages.
   */
  private prefixes: RenderedPrefix[] = [];
  private readonly judge: MessageJudge;
  private readonly blobWriter: ArgumentBlobWriter | undefined;
  /** The last resolved steps, by the number of steps they were resolved for. */
  private resolvedCache: { steps: number; resolved: Array<{ index: number; mode: PruneMode }> } | undefined;
  /** Recent steps, newest last. */
  readonly actions: StepAction[] = [];
  /** The host's cache warming decisions answered in this session, and the last answer. */
  readonly warming: { answered: number; stopped: number; last?: WarmingAnswer } = { answered: 0, stopped: 0 };
  lastReport: CallReport | undefined;

  /**
   * @param env.cwd the session's cwd (protected paths and stale reads compare paths relative to it)
   * @param env.blobWriter where cut call arguments are stored; without one the cut names another way back
   */
  constructor(
    private readonly options: PruneOptions,
    private readonly store: () => SessionStore,
    private readonly logger?: Logger,
    env: { cwd?: string; blobWriter?: ArgumentBlobWriter; redact?: (text: string) => string } = {},
  ) {
    this.rules = { normal: rulesFor(options, "normal"), tight: rulesFor(options, "tight") };
    this.blobWriter = env.blobWriter;
    const s = store();
    this.steps = loadSteps(s);
    this.pins = loadPins(s);
    this.judge = new MessageJudge(options, this.rules, this.calls, this.pins, env);
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

  /**
   * Prunes one outgoing context. Returns `messages` itself when nothing changes.
   * @param folded message ranges [start, end) that folds replace in what is sent (ascending, from the
   *   fold plugin's service): left out of the sizes the adaptive mode and the step rule measure, since
   *   those messages are not sent. Undefined when no fold plugin runs.
   */
  run(messages: readonly AgentMessageLike[], usage?: ContextInfo["usage"], folded?: MessageRanges, promptCache?: PromptCacheInfo): AgentMessageLike[] {
    this.requests++;
    const lifetime = this.lifetimeOf(promptCache);
    const clock = lifetime === undefined ? undefined : requestCache(messages, lifetime, promptCache?.warmedAt);
    if (clock) this.forgetExpiredEntries(clock);
    const foldApplies = folded !== undefined && hasNewFold(messages, this.last.length);
    folded ??= [];
    this.last = messages;
    const n = messages.length;
    const gathered = this.gatherFacts(messages);
    const starts = gathered.starts;
    let rawChars = gathered.rawChars;
    const folds = foldKey(folded);
    for (const [start, end] of folded) rawChars -= this.prefixChars[Math.min(end, n)]! - this.prefixChars[Math.min(start, n)]!;
    this.forgetChangedPrefixes(n);

    const window = usage?.contextWindow || this.options.contextWindow;
    const rawTokens = tokensOf(rawChars);
    // Measured BEFORE pruning: pi's own usage figure reflects the last (already pruned) request, and a
    // rule that reads the pruned size flips off as soon as it has pruned, then on again.
    const percentBefore = (Math.max(rawTokens, usage?.tokens ?? 0) / window) * 100;
    this.updateMode(percentBefore);
    const rules = this.rules[this.mode];

    const resolved = this.resolveSteps(starts);
    const turnsBefore = (index: number) => countBefore(starts, index);
    const at = resolved.length ? resolved[resolved.length - 1]!.index : 0;
    const { boundary, current, stepped } = this.considerStep(messages, {
      resolved,
      boundary: at,
      current: this.prefixAt(messages, resolved, at, turnsBefore),
      turnsBefore,
      starts,
      rules,
      folded,
      folds,
      foldApplies,
      rawChars,
      window,
      clock,
    });
    if (current.blobs.length) this.blobWriter?.write(current.blobs);
    this.noteRequestEnd(n, clock);

    const { placeholders, savedChars } = current;
    this.lastReport = {
      request: this.requests,
      messages: n,
      turns: starts.length,
      mode: this.mode,
      percentBefore,
      boundaryTurn: turnsBefore(boundary),
      placeholders,
      argumentCuts: current.arguments ?? 0,
      savedChars,
      rawTokens,
      sentTokens: tokensOf(rawChars - savedOutside(current, folded, folds)),
      stepped,
      ...(clock?.cold ? { cold: true } : {}),
      ...(lifetime !== undefined ? { cacheLifetimeSeconds: lifetime } : {}),
    };
    return sendPrefix(messages, current, boundary);
  }

  /** Rendered prefixes and views that cover a message changed since the last call are stale. */
  private forgetChangedPrefixes(n: number): void {
    if (!(this.changedFrom < n || this.prefixes.some((p) => p.boundary > n))) return;
    this.prefixes = this.prefixes.filter((p) => p.boundary <= this.changedFrom);
    this.judge.forget(this.changedFrom);
    if (this.judge.highestFrozen > this.changedFrom) {
      for (let i = 0; i < this.changedFrom; i++) {
        const frozen = this.facts[i]!.frozen;
        if (frozen && frozen.upTo > this.changedFrom) this.facts[i]!.frozen = undefined;
      }
      this.judge.highestFrozen = this.changedFrom;
    }
  }

  /**
   * Whether the boundary steps to the start of the oldest protected turn on this request (step-rule.ts
   * decides); takes the step when it does. Returns the boundary and prefix the request is sent with.
   */
  private considerStep(
    messages: readonly AgentMessageLike[],
    r: {
      resolved: Array<{ index: number; mode: PruneMode }>;
      boundary: number;
      current: RenderedPrefix;
      turnsBefore: (index: number) => number;
      starts: number[];
      rules: ModeRules;
      folded: MessageRanges;
      folds: string;
      foldApplies: boolean;
      rawChars: number;
      window: number;
      clock: RequestCache | undefined;
    },
  ): { boundary: number; current: RenderedPrefix; stepped: boolean } {
    const { boundary, current, folded, folds, clock } = r;
    const n = messages.length;
    const candidate = protectedFrom(r.starts, r.rules.keepRecentTurns);
    if (candidate <= boundary) return { boundary, current, stepped: false };
    const nextSteps = [...r.resolved, { index: candidate, mode: r.rules.mode }];
    const preview = this.prefixAt(messages, nextSteps, candidate, r.turnsBefore);
    const pendingChars = Math.max(0, savedOutside(preview, folded, folds) - savedOutside(current, folded, folds));
    if (preview.diff?.from !== current.key) preview.diff = { from: current.key, first: firstDifference(current, preview) };
    const firstChange = preview.diff.first;
    // A fold that applies from this request rewrites the prompt from its first folded turn anyway:
    // stepping now adds no cache write and saves a prefix break later.
    const sentChars = r.rawChars - savedOutside(current, folded, folds);
    // What the step would rewrite on a warm cache. A cold cache is written in full whatever is sent,
    // so there the step adds no cache write either; the warm estimate still says whether this turn
    // could step within the lookback (cheapShare describes the session, not the clock).
    const warm =
      firstChange < 0 || r.foldApplies
        ? { prefix: 0, breakpoint: 0, later: 0 }
        : rewriteEstimates(
            this.facts,
            firstChange,
            sentChars - pendingChars,
            pendingChars,
            this.prefixChars[n]! - this.prefixChars[firstChange]!,
            this.options.stepRule === "carry" ? undefined : this.requestEnds,
          );
    const rewrite = clock?.cold ? { prefix: 0, breakpoint: 0, later: 0 } : warm;
    if (candidate !== this.lastCandidate && !(firstChange < 0 || r.foldApplies)) {
      this.lastCandidate = candidate;
      this.cheapShare = 0.8 * this.cheapShare + 0.2 * (warm.breakpoint < warm.later ? 1 : 0);
    }
    // Expected model calls left: as many as the session has made so far (a session that has run
    // long is likely to run on; a young one may end soon).
    const decision = decideStep(
      {
        pending: tokensOf(pendingChars),
        sent: tokensOf(sentChars),
        rewrite: rewrite.breakpoint,
        rewritePrefix: rewrite.prefix,
        rewriteLater: rewrite.later,
        horizon: this.requests,
        cheapShare: this.cheapShare,
        window: r.window,
        carry: this.carry,
      },
      this.options,
    );
    this.carry = decision.carry;
    if (!decision.step) return { boundary, current, stepped: false };
    // Cache entries written after the change hold the old bytes: only those before it still hit.
    while (this.requestEnds.length && this.requestEnds[this.requestEnds.length - 1]! > firstChange) this.popRequestEnd();
    this.step(boundary, candidate, r.rules.mode, r.starts.indexOf(candidate) + 1, pendingChars, current, preview, clock?.cold === true);
    this.resolvedCache = { steps: this.steps.length, resolved: nextSteps };
    return { boundary: candidate, current: preview, stepped: true };
  }

  /** Where this request's prompt ends, for the cache entries the next requests may hit. */
  private noteRequestEnd(n: number, clock: RequestCache | undefined): void {
    // A cold request found no entry alive: only what it writes now is cached.
    if (clock?.cold) {
      this.requestEnds.length = 0;
      this.requestEndTimes.length = 0;
    }
    while (this.requestEnds.length && this.requestEnds[this.requestEnds.length - 1]! > n) this.popRequestEnd();
    this.requestEnds.push(n);
    this.requestEndTimes.push(clock?.now ?? 0);
    if (this.requestEnds.length > MAX_REQUEST_ENDS) {
      this.requestEnds.shift();
      this.requestEndTimes.shift();
    }
  }

  // ---- The clock: cold caches, expired cache entries, what the next request rewrites ----

  /** Records an answer to the host's cache warming (`/<root> pruning` shows it). */
  noteWarming(answer: WarmingAnswer): void {
    this.warming.answered++;
    if (answer.action === "stop") this.warming.stopped++;
    this.warming.last = answer;
  }

  /**
   * Estimated tokens of the last prompt's messages that the next request writes into the cache again
   * whatever the cache holds: everything after the first change of the step pending then (taken at
   * once on a cold cache, or later at the price of a rewrite). 0 when no step is pending.
   * `newTurn`: the next request starts a turn (the agent is idle, the user's next prompt comes).
   */
  nextStepRewrite(newTurn: boolean): number {
    const messages = this.last;
    const n = messages.length;
    if (!n || this.facts.length !== n) return 0;
    const starts = newTurn ? [...this.turnStarts, n] : this.turnStarts;
    const rules = this.rules[this.mode];
    const candidate = Math.min(protectedFrom(starts, rules.keepRecentTurns), n);
    const resolved = this.resolveSteps(this.turnStarts);
    const boundary = resolved.length ? resolved[resolved.length - 1]!.index : 0;
    if (candidate <= boundary) return 0;
    const turnsBefore = (index: number) => countBefore(starts, index);
    const current = this.prefixAt(messages, resolved, boundary, turnsBefore);
    const preview = this.prefixAt(messages, [...resolved, { index: candidate, mode: rules.mode }], candidate, turnsBefore);
    const first = firstDifference(current, preview);
    if (first < 0) return 0;
    let chars = this.prefixChars[n]! - this.prefixChars[first]!;
    for (const r of current.replaced) if (r.index >= first) chars -= r.saved ?? 0;
    return tokensOf(Math.max(0, chars));
  }

  /** The cache lifetime in force (seconds): `cacheLifetime`, else the model's, else the default; undefined with "off". */
  private lifetimeOf(promptCache: PromptCacheInfo | undefined): number | undefined {
    const setting = this.options.cacheLifetime ?? "off";
    if (setting === "off") return undefined;
    return typeof setting === "number" ? setting : (promptCache?.lifetimeSeconds ?? DEFAULT_CACHE_LIFETIME_SECONDS);
  }

  /**
   * Cache entries (request ends) unused for longer than the lifetime are gone (on a cold request all
   * of them: `run` forgets them after the step's warm estimate).
   */
  private forgetExpiredEntries(clock: RequestCache): void {
    if (clock.cold) return;
    // The newest end is the previous request's: alive, since the request is not cold.
    let drop = 0;
    while (drop < this.requestEnds.length - 1 && this.requestEndTimes[drop]! > 0 && clock.now - this.requestEndTimes[drop]! > clock.lifetimeMs) drop++;
    if (drop) {
      this.requestEnds.splice(0, drop);
      this.requestEndTimes.splice(0, drop);
    }
  }

  private popRequestEnd(): void {
    this.requestEnds.pop();
    this.requestEndTimes.pop();
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
        if (b.type === "toolCall" && typeof b.id === "string")
          this.calls.set(b.id, { name: String(b.name), args: (b.arguments as Record<string, unknown>) ?? {} });
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
    const { enter, exit } = adaptiveThresholds(this.options);
    if (!this.tight && percent >= enter) this.tight = true;
    else if (this.tight && percent < exit) this.tight = false;
  }

  /** Boundary steps mapped to indexes of this message list, ascending. Steps whose turn is gone are skipped. */
  private resolveSteps(starts: readonly number[]): Array<{ index: number; mode: PruneMode }> {
    if (!this.steps.length) return [];
    // Same steps, and no message up to the last one's turn changed: the same indexes (no pass over every turn).
    const cached = this.resolvedCache;
    if (
      cached &&
      cached.steps === this.steps.length &&
      cached.resolved.length === this.steps.length &&
      this.changedFrom > cached.resolved[cached.resolved.length - 1]!.index
    )
      return cached.resolved;
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

  private step(
    from: number,
    to: number,
    mode: PruneMode,
    turn: number,
    pendingChars: number,
    current: RenderedPrefix,
    next: RenderedPrefix,
    cold: boolean,
  ): void {
    const record: StepRecord = { key: this.facts[to]!.turnKey!, mode, turn, freedTokens: tokensOf(pendingChars) };
    this.steps.push(record);
    this.store().append(STEP_KIND, { ...record });
    const before = new Map(current.replaced.map((r) => [r.index, r.message]));
    const items: string[] = [];
    let results = 0;
    for (const r of next.replaced) {
      if (before.get(r.index) === r.message || !r.summary) continue;
      results++;
      if (items.length < 5) items.push(r.summary.length > 240 ? `${r.summary.slice(0, 239)}…` : r.summary);
    }
    this.actions.push({ request: this.requests, turn: record.turn, mode, results, savedChars: pendingChars, items, ...(cold ? { cold } : {}) });
    if (this.actions.length > MAX_ACTIONS) this.actions.shift();
    this.logger?.debug("pruning boundary moved", { from, turn: record.turn, mode, results, freedTokens: record.freedTokens, ...(cold ? { cold } : {}) });
  }

  /**
   * The pruned prefix [0, boundary) under the resolved steps: replacements, placeholders and chars
   * saved. Cached by steps and pins, valid while no message before the boundary changed; the boundary
   * being stepped to is rendered the same way (the preview), so a step's saving and first change are
   * exact, and the preview becomes the prefix when the step is taken.
   */
  private prefixAt(
    messages: readonly AgentMessageLike[],
    resolved: ReadonlyArray<{ index: number; mode: PruneMode }>,
    boundary: number,
    turnsBefore: (index: number) => number,
  ): RenderedPrefix {
    let steps = stepKeys.get(resolved);
    if (steps === undefined) stepKeys.set(resolved, (steps = resolved.map((r) => `${r.index}:${r.mode}`).join(",")));
    const key = `${this.pinsVersion}|${steps}`;
    const hit = this.prefixes.find((p) => p.key === key);
    if (hit) return hit;
    const into: RenderedPrefix = { boundary, key, replaced: [], placeholders: 0, savedChars: 0, blobs: [], turnDependent: [] };
    const turns = turnsBefore(boundary);
    const decideAt = (i: number, s: number) => {
      const stepFrom = s > 0 ? resolved[s - 1]!.index : 0;
      const step = { from: stepFrom, upTo: resolved[s]!.index, mode: resolved[s]!.mode };
      const f = this.facts[i]!;
      const m = messages[i]!;
      const d = this.judge.decide(f, m, step, messages, turnsBefore, turns);
      // An assistant message with a failed call is decided again when the turns before the boundary grow.
      if (m.role === "assistant" && f.frozen?.sites?.some((site) => site.isError)) into.turnDependent.push(i);
      if (!d.replacement) return;
      if (d.kind === "pin") {
        add({ index: i, message: d.replacement, kind: "pin" });
        return;
      }
      add({ index: i, message: d.replacement, summary: d.summary, saved: d.savedChars, kind: d.kind === "arguments" ? "arguments" : "result", blobs: d.blobs });
    };
    const add = (r: ReplacedMessage) => {
      into.replaced.push(r);
      into.savedChars += r.saved ?? 0;
      if (r.kind === "result") into.placeholders++;
      else if (r.kind === "arguments") into.arguments = (into.arguments ?? 0) + 1;
      if (r.blobs?.length) into.blobs.push(...r.blobs);
    };
    let s = 0;
    let i = 0;
    const base = this.baseOf(key, resolved);
    if (base) {
      // The same steps minus the new one, the same pins, the same messages before its boundary: its
      // decisions hold here, except argument cuts of failed calls, which age with the turns before the
      // boundary and are decided again. A preview then costs the new step's messages, not the history.
      const again = new Set(base.turnDependent);
      for (const r of base.replaced) if (!again.has(r.index)) add(r);
      for (const j of base.turnDependent) {
        while (resolved[s]!.index <= j) s++;
        decideAt(j, s);
      }
      if (again.size) into.replaced.sort((a, b) => a.index - b.index);
      i = base.boundary;
    }
    for (; i < boundary; i++) {
      while (resolved[s]!.index <= i) s++;
      decideAt(i, s);
    }
    this.prefixes = [into, ...this.prefixes].slice(0, 3);
    return into;
  }

  /**
   * The cached prefix rendered with `resolved` minus its last step (same pins), whose boundary is
   * that step's predecessor: the part of a new prefix that is already decided.
   */
  private baseOf(key: string, resolved: ReadonlyArray<{ index: number; mode: PruneMode }>): RenderedPrefix | undefined {
    if (resolved.length < 2) return undefined;
    const cut = key.lastIndexOf(",");
    const baseKey = key.slice(0, cut);
    const base = this.prefixes.find((p) => p.key === baseKey);
    return base && base.boundary === resolved[resolved.length - 2]!.index ? base : undefined;
  }
}

/** The pruned prefix of a message list up to a boundary (see `prefixAt`). */
interface RenderedPrefix {
  boundary: number;
  /** Pins version and the resolved steps (`index:mode`) it was rendered with. */
  key: string;
  /** Replaced messages, ascending by index. */
  replaced: ReplacedMessage[];
  /** Assistant messages whose argument cuts depend on the turns before the boundary (failed calls). */
  turnDependent: number[];
  /** Tool results replaced. */
  placeholders: number;
  /** Assistant messages whose call arguments were cut. */
  arguments?: number;
  savedChars: number;
  /** Full arguments to store for the cuts in this prefix. */
  blobs: Array<{ id: string; text: string }>;
  /** Characters saved outside the fold ranges with `key` (see `savedOutside`). */
  outside?: { key: string; saved: number };
  /** The messages [0, boundary) as sent (replacements applied), built on first use. */
  sent?: AgentMessageLike[];
  /** For a preview: the first index that differs from the prefix with key `from`. */
  diff?: { from: string; first: number };
}

/** A message a rendered prefix replaces, and what the replacement counts as. */
interface ReplacedMessage {
  index: number;
  message: AgentMessageLike;
  summary?: string | undefined;
  saved?: number;
  /** A result's placeholder, a cut of call arguments, or a pin marker (counted as neither). */
  kind: "result" | "arguments" | "pin";
  /** Full arguments to store for a cut. */
  blobs?: Array<{ id: string; text: string }> | undefined;
}

/** The `index:mode` list of a resolved steps array, built once per array (resolved steps are cached). */
const stepKeys = new WeakMap<ReadonlyArray<{ index: number; mode: PruneMode }>, string>();

/** How many of `starts` (ascending) lie before `index`: the turns that start before a message. */
function countBefore(starts: readonly number[], index: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The messages sent: the pruned prefix before `boundary`, the rest as they are; `messages` itself when
 * nothing is replaced. The pruned prefix is built once per rendered prefix (its messages before the
 * boundary have not changed while it is cached), so a call copies two arrays instead of re-applying
 * every replacement.
 */
function sendPrefix(messages: readonly AgentMessageLike[], current: RenderedPrefix, boundary: number): AgentMessageLike[] {
  if (!current.replaced.length) return messages as AgentMessageLike[];
  if (!current.sent) {
    current.sent = messages.slice(0, boundary);
    for (const r of current.replaced) current.sent[r.index] = r.message;
  }
  return current.sent.concat(messages.slice(boundary));
}

/** A key for a list of fold ranges ("" when there are none). */
function foldKey(folded: ReadonlyArray<readonly [number, number]>): string {
  return folded.length ? folded.map(([start, end]) => `${start}-${end}`).join(",") : "";
}

/**
 * Characters a prefix saves outside the folded ranges (the folded ones are not sent at all); computed
 * once per prefix and set of folds, not on every call.
 */
function savedOutside(prefix: RenderedPrefix, folded: ReadonlyArray<readonly [number, number]>, key: string): number {
  if (!key) return prefix.savedChars;
  if (prefix.outside?.key === key) return prefix.outside.saved;
  let saved = prefix.savedChars;
  let f = 0;
  for (const r of prefix.replaced) {
    while (f < folded.length && folded[f]![1] <= r.index) f++;
    if (r.saved && f < folded.length && r.index >= folded[f]![0]) saved -= r.saved;
  }
  prefix.outside = { key, saved };
  return saved;
}

/** Index of the first message whose replacement differs between two prefixes, or -1. */
function firstDifference(a: RenderedPrefix, b: RenderedPrefix): number {
  const n = Math.max(a.replaced.length, b.replaced.length);
  for (let j = 0; j < n; j++) {
    const x = a.replaced[j];
    const y = b.replaced[j];
    if (x && y && x.index === y.index && x.message === y.message) continue;
    return Math.min(x?.index ?? Infinity, y?.index ?? Infinity);
  }
  return -1;
}

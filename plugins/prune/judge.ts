/**
 * The one decision entry of pruning: `MessageJudge.decide` takes a message before the boundary, its
 * facts and the step that covers it, and returns one decision (decide.ts `DecisionKind`). The checks,
 * in order, and nowhere else:
 * 1. only tool results and assistant messages are ever changed (user messages carry intent);
 * 2. a user-pinned result: its marker view (`pin`), or kept when it carries the marker already;
 * 3. what the step that covered the message knew (its relation, or its calls' sites), frozen then;
 * 4. a result: a call on a protected path is kept; a duplicate/stale relation gives its placeholder
 *    when shorter; else the mode's rules (decide.ts: pinned on arrival, already pruned, size, tool,
 *    snippet; only when shorter) give a `placeholder`;
 * 5. an assistant message: long or old failed call arguments are cut (`arguments`, arguments.ts).
 * Pure given its inputs; the per-message caches live in the facts, so a decision is computed once
 * per message. The pruner only walks the prefix and applies what comes back.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import type { ArgumentBlobWriter } from "./argument-blobs.ts";
import { type ArgumentCutReason, cutToolCallArguments } from "./arguments.ts";
import { type BoundaryView, boundaryView } from "./boundary-view.ts";
import type { ModeRules, PruneMode, PruneOptions } from "./config.ts";
import { type CallInfo, type Decision, decide, isPinnedInMessage, KEEP, relatedDecision } from "./decide.ts";
import { callPath, protectedPathMatcher } from "../../lib/context/index.ts";
import { withPinMarker } from "./pin-marker.ts";
import type { PinRecord } from "./records.ts";
import type { RelationOptions, ResultRelation } from "./relations.ts";

/** What the pruner remembers about the message at one index. */
export interface Facts {
  fp: string;
  chars: number;
  /** Content blocks, as the provider counts them for its cache lookback. */
  blocks: number;
  /** Set for messages that start a turn. */
  turnKey: string | undefined;
  decisions: Partial<Record<PruneMode, Decision>>;
  /** Duplicate/stale placeholders, by mode and relation. */
  related?: Map<string, Decision>;
  /** The last argument decision of an assistant message and the state it was made in (see decideArguments). */
  lastCut?: { state: number; decision: PrefixDecision };
  /** Argument cuts of an assistant message, by which calls are cut and why. */
  argCuts?: Map<string, PrefixDecision>;
  /** What the step covering this message knew of it. */
  frozen?: Frozen;
  /** The message with the user-pin marker, built once. */
  pinView?: AgentMessageLike;
}

/** A completed call of an assistant message, as the step covering the message saw it. */
export interface FrozenSite {
  id: string;
  isError: boolean;
  /** 1-based ordinal of the call's turn. */
  turn: number;
  /** Its result is pinned on arrival. */
  pinned: boolean;
}

/** What the step covering a message knew of it (see `frozenAt`). */
export interface Frozen {
  /** The boundary index of that step. */
  upTo: number;
  relation?: ResultRelation | undefined;
  sites?: FrozenSite[];
}

/** A decision that may carry blobs to store (argument cuts). */
export type PrefixDecision = Decision & { blobs?: Array<{ id: string; text: string }> };

/** The step covering a message: it starts at `from`, its boundary is `upTo`, under `mode`. */
export interface CoveringStep {
  from: number;
  upTo: number;
  mode: PruneMode;
}

/** Judges messages for one session's pruner (see the module comment). */
export class MessageJudge {
  /** True for a path that matches `protectedFilePatterns`. */
  readonly isProtected: (path: string) => boolean;
  private readonly relationOptions: RelationOptions;
  /** Views of the steps judged lately (the current one and the preview). */
  private views: BoundaryView[] = [];
  /** The highest boundary any frozen judgement was made at (a changed message below it thaws them). */
  highestFrozen = 0;

  /**
   * @param calls every tool call of the session by id (the pruner keeps it current)
   * @param pins the session's user pins
   * @param env.cwd the session's cwd (paths compare relative to it)
   * @param env.blobWriter where cut call arguments are stored; without one the cut names another way back
   */
  constructor(
    private readonly options: PruneOptions,
    private readonly rules: Record<PruneMode, ModeRules>,
    private readonly calls: ReadonlyMap<string, CallInfo>,
    private readonly pins: ReadonlyMap<string, PinRecord>,
    private readonly env: { cwd?: string; blobWriter?: ArgumentBlobWriter; redact?: (text: string) => string },
  ) {
    this.isProtected = protectedPathMatcher(options.protectedFilePatterns, env.cwd);
    this.relationOptions = {
      dedup: options.dedup,
      staleReads: options.staleReads,
      readTools: new Set(options.readTools),
      writeTools: new Set(options.writeTools),
      isProtected: this.isProtected,
      ...(env.cwd ? { cwd: env.cwd } : {}),
    };
  }

  /** Drops the views that cover a message at or after `changedFrom` (it changed). */
  forget(changedFrom: number): void {
    this.views = this.views.filter((v) => v.upTo <= changedFrom);
  }

  /**
   * What the step covering message i (boundary `upTo`) knew of it: its relation (a result) or its
   * calls' sites (an assistant message). Frozen when that step is first rendered, so a later step
   * never rewrites an old message again because of what came after it (a rewrite far back costs a
   * whole prompt cache write for a few characters).
   */
  frozenAt(f: Facts, m: AgentMessageLike, from: number, upTo: number, messages: readonly AgentMessageLike[], turnsBefore: (index: number) => number): Frozen {
    if (f.frozen?.upTo === upTo) return f.frozen;
    const view = this.viewAt(messages, from, upTo, turnsBefore(from));
    const frozen: Frozen = { upTo };
    if (m.role === "toolResult") frozen.relation = view.relations.get(String((m as { toolCallId?: unknown }).toolCallId));
    else if (Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type?: unknown; id?: unknown }>) {
        if (b?.type !== "toolCall" || typeof b.id !== "string") continue;
        const site = view.calls.get(b.id);
        if (site) (frozen.sites ??= []).push({ id: b.id, isError: site.isError, turn: site.turn, pinned: isPinnedInMessage(messages[site.resultIndex]!) });
      }
    }
    f.frozen = frozen;
    f.lastCut = undefined;
    this.highestFrozen = Math.max(this.highestFrozen, upTo);
    return frozen;
  }

  /**
   * The decision for message `m` (facts `f`) before the boundary, covered by `step` (see the module
   * comment for the order of the checks). `turns`: turns before the current boundary;
   * `turnsBefore(i)`: turns that start before index i.
   */
  decide(
    f: Facts,
    m: AgentMessageLike,
    step: CoveringStep,
    messages: readonly AgentMessageLike[],
    turnsBefore: (index: number) => number,
    turns: number,
  ): PrefixDecision {
    if (m.role !== "toolResult" && m.role !== "assistant") return KEEP;
    if (m.role === "toolResult" && this.pins.has(String((m as { toolCallId?: unknown }).toolCallId)))
      return isPinnedInMessage(m) ? KEEP : { kind: "pin", replacement: (f.pinView ??= withPinMarker(m, "user")), savedChars: 0 };
    const frozen = this.frozenAt(f, m, step.from, step.upTo, messages, turnsBefore);
    if (m.role === "toolResult") return this.decideResult(f, m, step.mode, frozen.relation);
    if (frozen.sites) return this.decideArguments(f, m, frozen.sites, turns);
    return KEEP;
  }

  private decideResult(f: Facts, m: AgentMessageLike, mode: PruneMode, relation: ResultRelation | undefined): Decision {
    const id = String((m as { toolCallId?: unknown }).toolCallId);
    const call = this.calls.get(id);
    const path = callPath(call?.args);
    if (path !== undefined && this.isProtected(path)) return NO_CHANGE;
    if (relation) {
      const key = `${mode}|${relation.kind}|${relation.kind === "duplicate" ? relation.newerCallId : relation.changedByCallId}`;
      const related = ((f.related ??= new Map()).get(key) ?? f.related.set(key, relatedDecision(m, relation, this.rules[mode], call)).get(key))!;
      if (related.replacement) return related;
    }
    return this.applied(f, m, mode);
  }

  /**
   * Cuts long arguments of an assistant message's completed calls: large ones when the step covers
   * them, failed ones once `failedArgsAfterTurns` turns (the call's own included) lie behind the
   * current boundary (the one decision a later step may still make about an old message).
   */
  private decideArguments(f: Facts, m: AgentMessageLike, sites: readonly FrozenSite[], turns: number): PrefixDecision {
    const { maxArgChars, failedArgsAfterTurns } = this.options;
    if (maxArgChars === 0 && failedArgsAfterTurns === 0) return NO_CHANGE;
    // After the step that froze the sites, only two inputs change, and both only grow: how many failed
    // calls are old enough, and how many calls the user pinned. Their counts key the last decision,
    // so a render of a long prefix does no per-call work for a message that was decided already.
    let old = 0;
    let pinned = 0;
    for (const site of sites) {
      if (site.pinned || this.pins.has(site.id)) pinned++;
      else if (site.isError && failedArgsAfterTurns > 0 && turns - site.turn + 1 >= failedArgsAfterTurns) old++;
    }
    const state = old * 1024 + pinned;
    if (f.lastCut?.state === state) return f.lastCut.decision;
    const plan = new Map<string, ArgumentCutReason>();
    for (const site of sites) {
      if (site.pinned || this.pins.has(site.id)) continue;
      if (!site.isError) {
        if (maxArgChars > 0) plan.set(site.id, "large");
      } else if (failedArgsAfterTurns > 0 && turns - site.turn + 1 >= failedArgsAfterTurns) plan.set(site.id, "failed");
    }
    let cut: PrefixDecision = NO_CHANGE;
    if (plan.size) {
      const key = [...plan].map(([id, why]) => `${id}:${why}`).join(",");
      cut = (f.argCuts ??= new Map()).get(key) ?? NO_CHANGE;
      if (cut === NO_CHANGE) {
        const done = cutToolCallArguments(m, (call) => plan.get(call.id), {
          maxArgChars,
          argExcerptChars: this.options.argExcerptChars,
          isProtected: this.isProtected,
          blobs: this.env.blobWriter !== undefined,
          ...(this.env.redact ? { redact: this.env.redact } : {}),
        });
        cut = {
          kind: done.replacement ? "arguments" : "keep",
          replacement: done.replacement,
          savedChars: done.savedChars,
          summary: done.summaries.join("; "),
          blobs: done.blobs,
        };
        f.argCuts.set(key, cut);
      }
    }
    f.lastCut = { state, decision: cut };
    return cut;
  }

  /** The decision for a result under `mode` alone (no relations), cached per message. */
  private applied(f: Facts, m: AgentMessageLike, mode: PruneMode): Decision {
    if (m.role !== "toolResult") return NO_CHANGE;
    if (this.pins.has(String((m as { toolCallId?: unknown }).toolCallId))) return NO_CHANGE;
    return (f.decisions[mode] ??= decide(m, this.rules[mode], this.calls));
  }

  /** The view of the step covering messages[from, upTo), cached while nothing before `upTo` changed. */
  private viewAt(messages: readonly AgentMessageLike[], from: number, upTo: number, turnsBefore: number): BoundaryView {
    const hit = this.views.find((v) => v.from === from && v.upTo === upTo);
    if (hit) return hit;
    const view = boundaryView(messages, from, upTo, turnsBefore, this.relationOptions);
    this.views = [view, ...this.views].slice(0, 3);
    return view;
  }
}

const NO_CHANGE: Decision = KEEP;

/**
 * Folds, derived from the messages. A fold IS a message pair: an assistant `context_fold` tool call
 * with string `from`, `to` and `summary` arguments, and its tool result that is not an error. So a
 * replay of a recorded session folds exactly as the live session did, and nothing but the user's
 * unfold records (records.ts) is kept beside the history.
 *
 * The range rules are one function, used by the tool (is this request valid now?) and by the
 * renderer (is this recorded fold still valid in this list?): whole turns from the turn of `from` to
 * the turn of `to`, every turn complete, older than a given turn, no pinned result, no protected
 * path, no overlap with an active fold.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import { FOLD_TOOL } from "../../lib/context/index.ts";
import { isAfter, turnLabel, type TurnFacts, type TurnMap, TurnMapBuilder } from "./turn-map.ts";

/** The model's fold tool name (defined in lib/context, where pruning reads it too). */
export { FOLD_TOOL };

/** A `context_fold` call whose result is not an error. */
export interface FoldCall {
  /** The call's tool call id: the fold's id (`/<root> unfold <id>`). */
  id: string;
  from: string;
  to: string;
  summary: string;
  /** Index of the assistant message that made the call. */
  callMessage: number;
  /** The blob holding the folded messages (the result's meta.blob.id), when one was stored. */
  blobId: string | undefined;
}

/** A fold that applies to a message list. */
export interface ActiveFold {
  call: FoldCall;
  /** Indexes into the turn map's turns, inclusive. */
  first: number;
  last: number;
  /** Message range [start, end). */
  start: number;
  end: number;
  /** Characters of the folded messages (core size measure). */
  chars: number;
}

/** Every fold call of `messages`, in call order. */
export function foldCalls(messages: readonly AgentMessageLike[]): FoldCall[] {
  const builder = new TurnMapBuilder();
  builder.update(messages, 0, { userPins: new Map(), isProtected: () => false });
  return foldCallsOf(builder, messages);
}

/** The fold calls `builder` collected from `messages` (the list it last mapped), in call order. */
export function foldCallsOf(builder: TurnMapBuilder, messages: readonly AgentMessageLike[]): FoldCall[] {
  const out: FoldCall[] = [];
  for (const site of builder.foldSites) {
    const args = (site.arguments ?? {}) as { from?: unknown; to?: unknown; summary?: unknown };
    if (typeof args.from !== "string" || typeof args.to !== "string" || typeof args.summary !== "string") continue;
    const at = builder.foldResults.get(site.id);
    const result = at === undefined ? undefined : messages[at];
    if (!result || !succeeded(result)) continue;
    out.push({ id: site.id, from: args.from, to: args.to, summary: args.summary, callMessage: site.message, blobId: messageMeta(result).blob?.id });
  }
  return out;
}

function succeeded(result: AgentMessageLike): boolean {
  if ((result as { isError?: unknown }).isError === true) return false;
  const status = messageMeta(result).call?.status;
  return status === undefined || status === "SUCCESS";
}

/** Why a range cannot be folded: what is wrong, and how to fix it. */
export interface RangeProblem {
  problem: string;
  fix: string;
}

/** What a range is checked against. */
export interface RangeRules {
  /** Turns at or after this index are not finished (the current turn, or the fold call's turn). */
  before: number;
  /** Folds in force, which a new range may not overlap. */
  folded: readonly ActiveFold[];
}

/** Why turn `t` cannot be folded under `rules`, or undefined. */
export function turnBlocker(map: TurnMap, t: number, rules: RangeRules): string | undefined {
  const turn = map.turns[t]!;
  if (t >= rules.before) return `turn ${turn.ordinal} is not finished (only turns before turn ${map.turns[rules.before]?.ordinal ?? map.turns.length + 1} are)`;
  const fold = rules.folded.find((f) => f.first <= t && t <= f.last);
  if (fold) return `turn ${turn.ordinal} is already folded by ${fold.call.id}`;
  if (turn.pinned.length) return `turn ${turn.ordinal} holds the pinned result of ${turn.pinned[0]}`;
  if (turn.protectedCalls.length)
    return `turn ${turn.ordinal} has a call on the protected path ${turn.protectedCalls[0]!.path} (${turn.protectedCalls[0]!.id})`;
  if (!turn.complete) return `turn ${turn.ordinal} has a tool call without its result (or a result without its call)`;
  return undefined;
}

/** A range of turns that could be folded, as a call the model can make. */
export interface FoldableRun {
  first: TurnFacts;
  last: TurnFacts;
  from: string;
  to: string;
}

/**
 * The maximal runs of foldable turns within turn indexes [lo, hi], trimmed to turns with tool calls
 * at both ends (from/to are call ids), longest first then oldest; runs of fewer than `minTurns` turns
 * are left out.
 */
export function foldableRuns(map: TurnMap, lo: number, hi: number, rules: RangeRules, minTurns = 1): FoldableRun[] {
  const runs: FoldableRun[] = [];
  let t = Math.max(0, lo);
  const top = Math.min(hi, map.turns.length - 1);
  while (t <= top) {
    if (turnBlocker(map, t, rules) !== undefined) {
      t++;
      continue;
    }
    let end = t;
    while (end + 1 <= top && turnBlocker(map, end + 1, rules) === undefined) end++;
    let a = t;
    let b = end;
    while (a <= b && !map.turns[a]!.calls.length) a++;
    while (b >= a && !map.turns[b]!.calls.length) b--;
    if (a <= b && b - a + 1 >= minTurns) {
      const first = map.turns[a]!;
      const last = map.turns[b]!;
      runs.push({ first, last, from: first.calls[0]!, to: last.calls[last.calls.length - 1]! });
    }
    t = end + 1;
  }
  return runs.sort((x, y) => y.last.ordinal - y.first.ordinal - (x.last.ordinal - x.first.ordinal) || x.first.ordinal - y.first.ordinal);
}

/** `turns 3-5 (from "a" to "b")` for each run, or a sentence saying there is none. */
export function describeRuns(runs: readonly FoldableRun[], max = 3): string {
  if (!runs.length) return "no finished turn can be folded right now";
  return runs
    .slice(0, max)
    .map((r) => `${turnLabel(r.first, r.last)} (from ${JSON.stringify(r.from)} to ${JSON.stringify(r.to)})`)
    .join(", ");
}

/** Longest piece of the model's own arguments echoed back in an error, in characters. */
export const MAX_ECHO_CHARS = 80;

/** `id` (the model's input) quoted for an error message, cut to {@link MAX_ECHO_CHARS} with its length said. */
function echo(id: string): string {
  return id.length <= MAX_ECHO_CHARS
    ? JSON.stringify(id)
    : `${JSON.stringify(`${id.slice(0, MAX_ECHO_CHARS)}…`)} (${id.length.toLocaleString("en-US")} characters)`;
}

/** The turn indexes [first, last] that `from`..`to` widen to, or why they cannot be folded. */
export function checkRange(map: TurnMap, from: string, to: string, rules: RangeRules): { first: number; last: number } | RangeProblem {
  const everywhere = () => `Foldable now: ${describeRuns(foldableRuns(map, 0, rules.before - 1, rules))}.`;
  const a = map.calls.get(from);
  const b = map.calls.get(to);
  for (const [name, id, place] of [
    ["from", from, a],
    ["to", to, b],
  ] as const) {
    if (!place)
      return {
        problem: `${name} ${echo(id)} is not the id of a tool call in this session's context`,
        fix: `Use the exact ids of your own earlier tool calls. ${everywhere()}`,
      };
    if (place.turn < 0) return { problem: `${name} ${echo(id)} comes before the first user message and belongs to no turn`, fix: everywhere() };
  }
  if (isAfter(a!, b!))
    return { problem: `from ${echo(from)} comes after to ${echo(to)}`, fix: "Swap from and to: from is the first call of the range, to the last." };
  const first = a!.turn;
  const last = b!.turn;
  const blockers: string[] = [];
  for (let t = first; t <= last; t++) {
    const why = turnBlocker(map, t, rules);
    if (why) blockers.push(why);
  }
  if (!blockers.length) return { first, last };
  const more = blockers.length > 3 ? ` (and ${blockers.length - 3} more)` : "";
  const inside = foldableRuns(map, first, last, rules);
  return {
    problem: `${turnLabel(map.turns[first]!, map.turns[last]!)} cannot be folded: ${blockers.slice(0, 3).join("; ")}${more}`,
    fix: inside.length ? `Fold a part that can be folded: ${describeRuns(inside)}.` : `Nothing in this range can be folded. ${everywhere()}`,
  };
}

/** Whether `value` is a problem rather than a range. */
export function isProblem(value: { first: number; last: number } | RangeProblem): value is RangeProblem {
  return "problem" in value;
}

/**
 * The folds in force: each fold call (`foldCallsOf`) in call order, minus the unfolded ones, whose
 * range is still valid (older than the call's own turn, no overlap with an earlier active fold, and
 * the other range rules). Invalid ones come back with their reason.
 */
export function activeFolds(
  calls: readonly FoldCall[],
  map: TurnMap,
  unfolded: ReadonlySet<string>,
  charsOf: (start: number, end: number) => number,
): { active: ActiveFold[]; invalid: Array<{ id: string; reason: string }> } {
  const active: ActiveFold[] = [];
  const invalid: Array<{ id: string; reason: string }> = [];
  for (const call of calls) {
    if (unfolded.has(call.id)) continue;
    const place = map.calls.get(call.id);
    const before = place && place.turn >= 0 ? place.turn : 0;
    const range = checkRange(map, call.from, call.to, { before, folded: active });
    if (isProblem(range)) {
      invalid.push({ id: call.id, reason: range.problem });
      continue;
    }
    const start = map.turns[range.first]!.start;
    const end = map.turns[range.last]!.end;
    active.push({ call, first: range.first, last: range.last, start, end, chars: charsOf(start, end) });
  }
  return { active, invalid };
}

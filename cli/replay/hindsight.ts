/**
 * The cheapest schedule of pruning steps, chosen with hindsight: a reference for the step rule.
 *
 * The step rule decides online, request by request, whether moving the boundary now pays for the
 * cache rewrite it causes. Knowing the whole session instead, the best schedule of the same steps
 * can be found exactly: a step at request s sends what the pruner would send if it had stepped at
 * every request (`views[s]`); until the next step the prompt is that view plus the history appended
 * since. The cost of the requests after step s depends only on s, so dynamic programming over "the
 * last step was s" finds the cheapest schedule in O(R^2) for R requests, after one O(R^2 log M) pass
 * that prices every (previous step, step) pair with prefix hashes (M messages per request).
 *
 * A price per step (`stepPrice`, in cost units) traces the trade-off between cache breaks and cost:
 * {@link cheapestScheduleWithin} finds the cheapest schedule with at most a given number of steps by
 * bisecting that price. The pricing applies the cache models' rules but only looks back to the last
 * step: a step that could reuse an even older request's cache entry is priced as if it could not, so
 * an estimate is never below what the schedule costs. Callers replay the chosen schedule through the
 * real models ({@link schedulePolicy} + simulate) to report what it costs exactly.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { CACHE_PRICING, hasNewFold } from "../../plugins/prune/index.ts";
import { DEFAULT_CACHE_LIFETIME_MS, LOOKBACK_BLOCKS, messageHash, messageTokens } from "./cache-model.ts";
import type { Policy } from "./policies.ts";
import { type SimOptions, type SimRequest, simulate, type SimTotals } from "./simulate.ts";

/** Which cache model the schedule is cheapest under. */
export type CacheModelName = "prefix" | "breakpoint";

/** A schedule of steps: the requests (indices) at which the boundary moves, ascending, and its estimated cost. */
export interface StepSchedule {
  steps: number[];
  /** Estimated cost in fresh-input token equivalents, without the step prices. */
  cost: number;
}

/** Per-message facts of one message list: prefix hashes, tokens and blocks, so any prefix is O(1). */
interface Sums {
  messages: readonly AgentMessageLike[];
  /** Two independent 32-bit hash chains over the message hashes: equal prefixes have equal entries. */
  h1: Int32Array;
  h2: Int32Array;
  tokens: Float64Array;
  blocks: Float64Array;
}

/** Prefix hashes and sums of one message list; `ids` numbers the message hashes (one map per pricer). */
function sumsOf(messages: readonly AgentMessageLike[], ids: Map<string, number>): Sums {
  const n = messages.length;
  const s: Sums = { messages, h1: new Int32Array(n + 1), h2: new Int32Array(n + 1), tokens: new Float64Array(n + 1), blocks: new Float64Array(n + 1) };
  s.h1[0] = 0x811c9dc5 | 0;
  s.h2[0] = 0x1234567;
  for (let j = 0; j < n; j++) {
    const m = messages[j]!;
    const h = messageHash(m);
    let id = ids.get(h);
    if (id === undefined) ids.set(h, (id = ids.size + 1));
    s.h1[j + 1] = Math.imul(s.h1[j]! ^ id, 16777619);
    s.h2[j + 1] = Math.imul(s.h2[j]! + id * 2654435761, 0x5bd1e995) ^ (s.h2[j]! >>> 13);
    s.tokens[j + 1] = s.tokens[j]! + messageTokens(m);
    s.blocks[j + 1] = s.blocks[j]! + (Array.isArray(m.content) ? Math.max(1, m.content.length) : 1);
  }
  return s;
}

/** Length of the common prefix of a[0..limit) and b[0..limit): binary search on the prefix hashes. */
function commonPrefix(a: Sums, b: Sums, limit: number): number {
  let lo = 0;
  let hi = limit;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.h1[mid] === b.h1[mid] && a.h2[mid] === b.h2[mid]) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Requests per session a schedule is computed for: the pricing keeps two triangles of R^2/2 numbers (3000: about 72 MB). */
export const MAX_SCHEDULE_REQUESTS = 3000;

const price = (read: number, write: number) => read * CACHE_PRICING.read + write * CACHE_PRICING.write;

/**
 * Prices every request of a session under one cache model, for every choice of the last step.
 * `raw[r]`: the history at request r; `views[r]`: what the pruner sends at r when it steps at every request.
 */
export class SchedulePricer {
  private readonly raw: Sums[];
  private readonly views: Sums[];
  /** stepCost[s][p]: request s when it steps and the last step was p (p < s); Infinity when impossible. */
  private readonly stepCost: Float64Array[] = [];
  /** segment[p][r - p - 1]: request r (> p) sent as views[p] plus the history appended since. */
  private readonly segment: Float64Array[] = [];
  /** cold[r]: request r comes longer than the cache lifetime after request r - 1 and reads nothing. */
  private readonly cold: boolean[];
  /** lastCold[r]: the latest cold request at or before r (0 when none): cache entries before it are gone. */
  private readonly lastCold: Int32Array;

  /**
   * @param systemTokens tokens of the system prompt and tool definitions sent first (default 4000)
   * @param contextWindow a schedule may not send a prompt larger than this many tokens (default: no limit)
   * @param mustStep requests every schedule steps at (default none): a fold the model made applies
   *   from its request on, whatever the step rule does, so no schedule may postpone it
   * @param clock the requests' times (ms) and the cache lifetime: a request after a longer gap
   *   reads nothing, so it costs a full write whether it steps or not (default: nothing expires)
   */
  constructor(
    raw: readonly (readonly AgentMessageLike[])[],
    views: readonly (readonly AgentMessageLike[])[],
    private readonly model: CacheModelName,
    private readonly systemTokens = 4000,
    private readonly contextWindow = Number.POSITIVE_INFINITY,
    mustStep: readonly boolean[] = [],
    private readonly clock?: ScheduleClock,
  ) {
    if (raw.length !== views.length) throw new Error(`raw and views differ in length (${raw.length} and ${views.length} requests)`);
    if (raw.length > MAX_SCHEDULE_REQUESTS)
      throw new Error(`${raw.length} requests are more than the ${MAX_SCHEDULE_REQUESTS} a schedule is computed for (memory and time grow with the square)`);
    const ids = new Map<string, number>();
    this.raw = raw.map((m) => sumsOf(m, ids));
    this.views = views.map((m) => sumsOf(m, ids));
    const R = raw.length;
    this.cold = raw.map((_, r) => r > 0 && clock !== undefined && coldAfter(clock, r));
    this.lastCold = new Int32Array(R);
    for (let r = 1; r < R; r++) this.lastCold[r] = this.cold[r] ? r : this.lastCold[r - 1]!;
    for (let p = 0; p < R; p++) {
      const row = new Float64Array(R - p - 1).fill(Number.POSITIVE_INFINITY);
      for (let r = p + 1; r < R && !mustStep[r] && this.extends(r, r - 1) && this.extends(r, p); r++) row[r - p - 1] = this.segmentRequestCost(p, r);
      this.segment.push(row);
    }
    for (let s = 0; s < R; s++) {
      const row = new Float64Array(s);
      for (let p = 0; p < s; p++) row[p] = this.stepRequestCost(s, p);
      this.stepCost.push(row);
    }
  }

  /** raw[r] starts with raw[q] (the same messages; a branch switch or compaction breaks this). */
  private extends(r: number, q: number): boolean {
    const n = this.raw[q]!.messages.length;
    return this.raw[r]!.messages.length >= n && commonPrefix(this.raw[r]!, this.raw[q]!, n) === n;
  }

  /** Tokens and blocks of request r's messages sent in the segment of step p. */
  private sent(r: number, p: number): { tokens: number; blocks: number; length: number } {
    const v = this.views[p]!;
    const raw = this.raw[r]!;
    const from = this.raw[p]!.messages.length;
    const n = raw.messages.length;
    return {
      tokens: v.tokens[v.messages.length]! + raw.tokens[n]! - raw.tokens[from]!,
      blocks: v.blocks[v.messages.length]! + raw.blocks[n]! - raw.blocks[from]!,
      length: v.messages.length + n - from,
    };
  }

  private segmentRequestCost(p: number, r: number): number {
    const now = this.sent(r, p);
    // Over the window when stepping here would fit: not allowed (when the step's own view is over too, nothing sends less).
    const stepView = this.views[r]!;
    if (this.systemTokens + now.tokens > this.contextWindow && this.systemTokens + stepView.tokens[stepView.messages.length]! <= this.contextWindow)
      return Number.POSITIVE_INFINITY;
    if (this.cold[r]) return price(0, this.systemTokens + now.tokens);
    const before = this.sent(r - 1, p);
    // The previous request is a prefix: (a) reads all of it; (b) only while its end is within the lookback.
    const hit = this.model === "prefix" || now.blocks - before.blocks <= LOOKBACK_BLOCKS ? before.tokens : 0;
    return price(this.systemTokens + hit, now.tokens - hit);
  }

  private stepRequestCost(s: number, p: number): number {
    const view = this.views[s]!;
    const previous = this.views[p]!;
    const total = view.tokens[view.messages.length]!;
    if (this.cold[s]) return price(0, this.systemTokens + total);
    // The previous request sent views[p] plus raw messages; the step's view must match it message by message.
    let same = commonPrefix(view, previous, Math.min(view.messages.length, previous.messages.length));
    if (same === previous.messages.length) {
      const tail = this.raw[s - 1]!.messages;
      const from = this.raw[p]!.messages.length;
      while (
        same < view.messages.length &&
        from + same - previous.messages.length < tail.length &&
        messageHash(view.messages[same]!) === messageHash(tail[from + same - previous.messages.length]!)
      )
        same++;
    }
    if (this.model === "prefix") return price(this.systemTokens + view.tokens[same]!, total - view.tokens[same]!);
    // (b): the latest earlier request end at or before the change, if it lies within the lookback of
    // the new end (an earlier one lies further back) and is still alive (written after the last cold
    // request, within the lifetime). Request ends grow with r: binary search.
    const limit = Math.min(same, view.messages.length);
    let lo = Math.max(p, this.lastCold[s - 1]!);
    if (this.clock) while (lo < s - 1 && !aliveAt(this.clock, lo, s)) lo++;
    let hi = s - 1;
    if (this.sent(lo, p).length > limit) return price(this.systemTokens, total);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.sent(mid, p).length <= limit) lo = mid;
      else hi = mid - 1;
    }
    const at = this.sent(lo, p).length;
    if (view.blocks[view.messages.length]! - view.blocks[at]! > LOOKBACK_BLOCKS) return price(this.systemTokens, total);
    return price(this.systemTokens + view.tokens[at]!, total - view.tokens[at]!);
  }

  /** The first request: nothing is cached yet. */
  private firstCost(): number {
    const view = this.views[0]!;
    return price(0, this.systemTokens + view.tokens[view.messages.length]!);
  }

  /** The estimated cost of stepping at exactly `steps` (request indices, ascending, each in [1, requests)). */
  costOf(steps: readonly number[]): number {
    const R = this.raw.length;
    steps.forEach((s, i) => {
      if (!Number.isInteger(s) || s < 1 || s >= R || (i > 0 && s <= steps[i - 1]!))
        throw new Error(`steps must be ascending request indices from 1 to ${R - 1} (got ${s} at position ${i})`);
    });
    if (R === 0) return 0;
    let cost = this.firstCost();
    let p = 0;
    let next = 0;
    for (let r = 1; r < R; r++) {
      if (steps[next] === r) {
        cost += this.stepCost[r]![p]!;
        p = r;
        next++;
      } else cost += this.segment[p]![r - p - 1]!;
    }
    return cost;
  }

  /** The cheapest schedule when every step costs `stepPrice` more (cost units; default 0). */
  cheapest(stepPrice = 0): StepSchedule {
    const R = this.raw.length;
    if (R === 0) return { steps: [], cost: 0 };
    const best = new Float64Array(R).fill(Number.POSITIVE_INFINITY);
    const from = new Int32Array(R).fill(-1);
    best[0] = this.firstCost();
    let finalCost = Number.POSITIVE_INFINITY;
    let last = 0;
    for (let p = 0; p < R; p++) {
      let run = best[p]!;
      if (!Number.isFinite(run)) continue;
      for (let s = p + 1; s <= R; s++) {
        if (s === R) {
          if (run < finalCost) (finalCost = run), (last = p);
          break;
        }
        const stepping = run + this.stepCost[s]![p]! + stepPrice;
        if (stepping < best[s]!) (best[s] = stepping), (from[s] = p);
        run += this.segment[p]![s - p - 1]!;
        if (!Number.isFinite(run)) break;
      }
    }
    const steps: number[] = [];
    for (let s = last; s > 0; s = from[s]!) steps.push(s);
    steps.reverse();
    return { steps, cost: finalCost - stepPrice * steps.length };
  }

  /**
   * The cheapest schedule with at most `maxSteps` steps, found by bisecting the step price (the
   * cheapest schedules of the cost/steps trade-off's lower hull; a schedule between two hull points
   * is not considered, so the result may use fewer steps than allowed).
   */
  cheapestWithin(maxSteps: number): StepSchedule {
    if (!(maxSteps >= 0)) throw new Error(`maxSteps must be a number >= 0 (got ${maxSteps})`);
    let free = this.cheapest(0);
    if (free.steps.length <= maxSteps) return free;
    let lo = 0;
    let hi = 1;
    let within = this.cheapest(hi);
    while (within.steps.length > maxSteps && hi < 1e12) within = this.cheapest((hi *= 4));
    for (let i = 0; i < 40 && hi - lo > 1; i++) {
      const mid = (lo + hi) / 2;
      const s = this.cheapest(mid);
      if (s.steps.length <= maxSteps) (hi = mid), (within = s);
      else (lo = mid), (free = s);
    }
    return within;
  }
}

/** Request times and the cache lifetime a schedule is priced with. */
export interface ScheduleClock {
  /** Each request's time (ms); a request without one never finds the cache cold. */
  times: readonly (number | undefined)[];
  lifetimeMs: number;
}

/** Request r comes longer than the lifetime after request r - 1. */
function coldAfter(clock: ScheduleClock, r: number): boolean {
  const now = clock.times[r];
  const before = clock.times[r - 1];
  return now !== undefined && before !== undefined && now - before > clock.lifetimeMs;
}

/** The cache entry request q wrote is alive at request s (written within the lifetime before it; unknown times: alive). */
function aliveAt(clock: ScheduleClock, q: number, s: number): boolean {
  const now = clock.times[s];
  const then = clock.times[q];
  return now === undefined || then === undefined || now - then <= clock.lifetimeMs;
}

/** Sends what a schedule sends: at request r, the view of the last step at or before r plus the history appended since. */
export function schedulePolicy(name: string, schedule: StepSchedule, views: readonly (readonly AgentMessageLike[])[]): Policy {
  return {
    name,
    async start() {
      let r = 0;
      let next = 0;
      let step = 0;
      let stepLength = 0;
      return async (messages) => {
        if (r === 0 || schedule.steps[next] === r) {
          if (r > 0) next++;
          step = r;
          stepLength = messages.length;
        }
        const out = views[step]!.concat(messages.slice(stepLength));
        r++;
        return out as AgentMessageLike[];
      };
    },
  };
}

/** `prune` settings that make the pruner step at every request: each step's view for a schedule. */
export const STEP_EVERY_REQUEST = Object.freeze({ cacheAware: false, minStepTokens: 0, minStepPercent: 0, forceStepFreePercent: 0 });

/** The cheapest schedule under one cache model and what it measured. */
export interface HindsightRun {
  schedule: StepSchedule;
  /** The schedule replayed through both cache models (its cost under the model it was chosen for is the reference). */
  totals: SimTotals;
}

/**
 * The cheapest schedule with hindsight under each cache model, replayed and measured.
 * `steppingEveryRequest`: the pruner configured to step at every request (its output is each step's view).
 * `maxSteps`: at most this many steps (default: no limit). No schedule sends a prompt over
 * `contextWindow` (default 200000) unless stepping at every request does.
 */
export async function hindsightRuns(
  requests: readonly SimRequest[],
  steppingEveryRequest: Policy,
  options: SimOptions & { maxSteps?: number } = {},
): Promise<Record<CacheModelName, HindsightRun>> {
  const transform = await steppingEveryRequest.start();
  const views: AgentMessageLike[][] = [];
  for (const r of requests) views.push(await transform(r.messages));
  const raw = requests.map((r) => r.messages);
  const mustStep = raw.map((m, r) => r > 0 && hasNewFold(m, raw[r - 1]!.length));
  const out = {} as Record<CacheModelName, HindsightRun>;
  const times = requests.map((r) => r.at);
  const clock = times.some((t) => t !== undefined) ? { times, lifetimeMs: options.cacheLifetimeMs ?? DEFAULT_CACHE_LIFETIME_MS } : undefined;
  for (const model of ["prefix", "breakpoint"] as const) {
    const pricer = new SchedulePricer(raw, views, model, options.systemTokens ?? 4000, options.contextWindow ?? 200_000, mustStep, clock);
    const schedule = options.maxSteps === undefined ? pricer.cheapest() : pricer.cheapestWithin(options.maxSteps);
    out[model] = { schedule, totals: (await simulate(requests, schedulePolicy(`hindsight (${model})`, schedule, views), options)).totals };
  }
  return out;
}

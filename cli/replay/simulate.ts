/**
 * Replays recorded model calls through a context policy and measures what would have been sent:
 * tokens per request (chars/4), the largest prompt, prompt-cache breaks and cache-weighted cost under
 * both cache models. Shared by the replay CLI and the bench, so both print the same numbers.
 *
 * Time: requests with their time (`at`) are priced with cache expiry (an entry lives
 * `cacheLifetimeMs` after its last use, so a request after a longer gap reads nothing and counts as
 * cold), and with pi's cache warming between them: the refreshes a session recorded (`warms`), or
 * pi's warming rule (`warming`, warming.ts) asking the policy before each refresh. Each refresh costs
 * reading the last prompt from cache and keeps its entries alive.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { BreakpointCache, type CacheOutcome, DEFAULT_CACHE_LIFETIME_MS, PrefixCache, type PreparedRequest, RequestPreparer } from "./cache-model.ts";
import type { Policy } from "./policies.ts";
import { failedBeforeModel } from "./session-file.ts";
import { piWarmingDecision, refreshTimes, type WarmingModel } from "./warming.ts";

/** A model call to replay. */
export interface SimRequest {
  turn: number;
  messages: AgentMessageLike[];
  /** When the request was sent (ms since the epoch), when known: the cache models then expire entries. */
  at?: number;
  /** Cache warming refreshes recorded before this request (ms), after the previous one. */
  warms?: number[];
}

/** Simulation settings. */
export interface SimOptions {
  /** Tokens of the system prompt and tool definitions, sent before the messages. Default 4000. */
  systemTokens?: number;
  /** Model context window in tokens; prompts above it are counted. Default 200000. */
  contextWindow?: number;
  /** How long a cache entry lives after its last use, for requests with times (ms). Default 300000. */
  cacheLifetimeMs?: number;
  /** pi's cache warming between requests with times, where the session recorded none. Default: none. */
  warming?: WarmingModel;
  /** Cache warming refreshes a session recorded after its last request (ms): priced on the last prompt. */
  trailingWarms?: readonly number[];
}

/** One simulated request. */
export interface RequestResult {
  turn: number;
  /** Prompt tokens sent (system + messages). */
  tokens: number;
  prefix: CacheOutcome;
  breakpoint: CacheOutcome;
  /** Warming refreshes sent before this request (after the previous one). */
  warms?: number;
}

/** Totals of one policy over one session. */
export interface SimTotals {
  requests: number;
  tokensSent: number;
  largestPrompt: number;
  overWindow: number;
  breaksPrefix: number;
  breaksBreakpoint: number;
  /** Fresh-input token equivalents (cached 0.1x, writes 1.25x), warming refreshes included. */
  costPrefix: number;
  costBreakpoint: number;
  /** Requests that found the cache cold (every entry expired), under the prefix model. */
  coldRequests: number;
  /** Cache warming refreshes sent, and what they cost (in the costs above; the same under both models). */
  warms: number;
  warmCost: number;
  /** What the policy's own model calls cost (a summariser; in the costs above). */
  sideCost: number;
}

/** A policy's run over one session. */
export interface SimResult {
  policy: string;
  requests: RequestResult[];
  totals: SimTotals;
}

/** True when `messages` ends a wait for the user: no assistant message after the last user message (the request starts a run). */
export function startsRun(messages: readonly AgentMessageLike[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i]!.role;
    if (role === "assistant") return false;
    if (role === "user") return true;
  }
  return true;
}

/** Runs every request through `policy` (one fresh session) and measures it. */
export async function simulate(requests: readonly SimRequest[], policy: Policy, options: SimOptions = {}): Promise<SimResult> {
  const systemTokens = options.systemTokens ?? 4000;
  const window = options.contextWindow ?? 200_000;
  const lifetimeMs = options.cacheLifetimeMs ?? DEFAULT_CACHE_LIFETIME_MS;
  const run = await policy.start();
  const prefixCache = new PrefixCache(lifetimeMs);
  const breakpointCache = new BreakpointCache(lifetimeMs);
  const preparer = new RequestPreparer(systemTokens);
  const results: RequestResult[] = [];
  const totals: SimTotals = { ...ZERO_TOTALS };
  let last: { at: number | undefined; prepared: PreparedRequest } | undefined;
  /** A warming refresh at `at`: the last request again, read from cache while its entry is alive. */
  const refresh = (at: number): boolean => {
    const a = prefixCache.refresh(at);
    breakpointCache.refresh(at);
    if (!a) return false;
    totals.warms++;
    totals.warmCost += a.cost;
    totals.costPrefix += a.cost;
    totals.costBreakpoint += a.cost;
    return true;
  };
  for (const request of requests) {
    let warmedAt: number | undefined;
    let warms = 0;
    if (request.at !== undefined && last?.at !== undefined) {
      const prompt = last.prepared.total;
      const idle = startsRun(request.messages);
      const times =
        request.warms ??
        (options.warming
          ? await refreshTimes(last.at, request.at, lifetimeMs, options.warming.mode, idle, async () => {
              const decision = piWarmingDecision(prompt, options.warming!.prices, idle);
              return (await run.cacheWarming?.({ ...decision, idle, promptTokens: prompt })) ?? decision.action;
            })
          : []);
      for (const at of times) {
        if (!refresh(at)) continue;
        warms++;
        warmedAt = at;
      }
    }
    const clock = request.at !== undefined ? { lifetimeSeconds: lifetimeMs / 1000, ...(warmedAt !== undefined ? { warmedAt } : {}) } : undefined;
    const sent = await run(request.messages, clock);
    const prepared = preparer.prepare(sent);
    const r: RequestResult = {
      turn: request.turn,
      tokens: prepared.total,
      prefix: prefixCache.observe(prepared, request.at),
      breakpoint: breakpointCache.observe(prepared, request.at),
      ...(warms ? { warms } : {}),
    };
    last = { at: request.at, prepared };
    results.push(r);
    totals.requests++;
    totals.tokensSent += r.tokens;
    totals.largestPrompt = Math.max(totals.largestPrompt, r.tokens);
    if (r.tokens > window) totals.overWindow++;
    if (r.prefix.broke) totals.breaksPrefix++;
    if (r.breakpoint.broke) totals.breaksBreakpoint++;
    if (r.prefix.cold) totals.coldRequests++;
    totals.costPrefix += r.prefix.cost;
    totals.costBreakpoint += r.breakpoint.cost;
    const side = run.takeSideCost?.() ?? 0;
    totals.sideCost += side;
    totals.costPrefix += side;
    totals.costBreakpoint += side;
  }
  for (const at of options.trailingWarms ?? []) refresh(at);
  return { policy: policy.name, requests: results, totals };
}

/** The time of a message (its `timestamp`, ms), when it has one. */
export function messageTime(m: AgentMessageLike): number | undefined {
  const t = (m as { timestamp?: unknown }).timestamp;
  return typeof t === "number" && Number.isFinite(t) && t > 0 ? t : undefined;
}

/** Requests of a message history the way pi makes them: one per assistant message (but calls that failed before reaching a model), with everything before it, at the assistant message's time. */
export function requestsFromMessages(messages: readonly AgentMessageLike[]): SimRequest[] {
  const out: SimRequest[] = [];
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "user") turn++;
    if (m.role === "assistant" && !failedBeforeModel(m)) {
      const at = messageTime(m);
      out.push({ turn, messages: messages.slice(0, i) as AgentMessageLike[], ...(at !== undefined ? { at } : {}) });
    }
  }
  return out;
}

/** Totals of nothing. */
export const ZERO_TOTALS: SimTotals = Object.freeze({
  requests: 0,
  tokensSent: 0,
  largestPrompt: 0,
  overWindow: 0,
  breaksPrefix: 0,
  breaksBreakpoint: 0,
  costPrefix: 0,
  costBreakpoint: 0,
  coldRequests: 0,
  warms: 0,
  warmCost: 0,
  sideCost: 0,
});

/**
 * Replays recorded model calls through a context policy and measures what would have been sent:
 * tokens per request (chars/4), the largest prompt, prompt-cache breaks and cache-weighted cost under
 * both cache models. Shared by the replay CLI and the bench, so both print the same numbers.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { BreakpointCache, type CacheOutcome, PrefixCache, RequestPreparer } from "./cache-model.ts";
import type { Policy } from "./policies.ts";
import { failedBeforeModel } from "./session-file.ts";

/** A model call to replay. */
export interface SimRequest {
  turn: number;
  messages: AgentMessageLike[];
}

/** Simulation settings. */
export interface SimOptions {
  /** Tokens of the system prompt and tool definitions, sent before the messages. Default 4000. */
  systemTokens?: number;
  /** Model context window in tokens; prompts above it are counted. Default 200000. */
  contextWindow?: number;
}

/** One simulated request. */
export interface RequestResult {
  turn: number;
  /** Prompt tokens sent (system + messages). */
  tokens: number;
  prefix: CacheOutcome;
  breakpoint: CacheOutcome;
}

/** Totals of one policy over one session. */
export interface SimTotals {
  requests: number;
  tokensSent: number;
  largestPrompt: number;
  overWindow: number;
  breaksPrefix: number;
  breaksBreakpoint: number;
  /** Fresh-input token equivalents (cached 0.1x, writes 1.25x). */
  costPrefix: number;
  costBreakpoint: number;
}

/** A policy's run over one session. */
export interface SimResult {
  policy: string;
  requests: RequestResult[];
  totals: SimTotals;
}

/** Runs every request through `policy` (one fresh session) and measures it. */
export async function simulate(requests: readonly SimRequest[], policy: Policy, options: SimOptions = {}): Promise<SimResult> {
  const systemTokens = options.systemTokens ?? 4000;
  const window = options.contextWindow ?? 200_000;
  const transform = await policy.start();
  const prefixCache = new PrefixCache();
  const breakpointCache = new BreakpointCache();
  const preparer = new RequestPreparer(systemTokens);
  const results: RequestResult[] = [];
  const totals: SimTotals = { ...ZERO_TOTALS };
  for (const request of requests) {
    const sent = await transform(request.messages);
    const prepared = preparer.prepare(sent);
    const r: RequestResult = {
      turn: request.turn,
      tokens: prepared.total,
      prefix: prefixCache.observe(prepared),
      breakpoint: breakpointCache.observe(prepared),
    };
    results.push(r);
    totals.requests++;
    totals.tokensSent += r.tokens;
    totals.largestPrompt = Math.max(totals.largestPrompt, r.tokens);
    if (r.tokens > window) totals.overWindow++;
    if (r.prefix.broke) totals.breaksPrefix++;
    if (r.breakpoint.broke) totals.breaksBreakpoint++;
    totals.costPrefix += r.prefix.cost;
    totals.costBreakpoint += r.breakpoint.cost;
  }
  return { policy: policy.name, requests: results, totals };
}

/** Requests of a message history the way pi makes them: one per assistant message (but calls that failed before reaching a model), with everything before it. */
export function requestsFromMessages(messages: readonly AgentMessageLike[]): SimRequest[] {
  const out: SimRequest[] = [];
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "user") turn++;
    if (m.role === "assistant" && !failedBeforeModel(m)) out.push({ turn, messages: messages.slice(0, i) as AgentMessageLike[] });
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
});

/**
 * Two models of a provider's prompt cache, both billing cached input at 0.1x and cache writes at
 * 1.25x of fresh input (CACHE_PRICING):
 *
 * (a) "prefix": any unchanged whole-message prefix of an earlier request is read from cache; the rest
 *     is written. The most generous model: it only punishes changes, wherever they are.
 * (b) "breakpoint" (Anthropic as pi uses it): pi marks two cache breakpoints per request, the system
 *     prompt and the last message. A request reads from cache only up to a breakpoint an earlier
 *     request wrote, and the provider looks for such a hit at most LOOKBACK content blocks behind the
 *     request's own last breakpoint. So a change more than ~20 blocks behind the end of the prompt
 *     (pruning an old turn) costs a full rewrite of everything after the system prompt.
 *
 * A "cache break" is a request that does not reuse the whole previous request as its cached prefix.
 *
 * Entries expire (`observe(req, at)` with the request's time and the models' `lifetimeMs`): an entry
 * lives `lifetimeMs` after its last use (written, read, or refreshed by cache warming), so a request
 * after a gap longer than the lifetime reads nothing ("cold"). Without times nothing expires.
 */
import { createHash } from "node:crypto";
import type { AgentMessageLike } from "../../core/index.ts";
import { estimateTokens as tokensOf, messageChars } from "../../lib/size/index.ts";
import { CACHE_PRICING } from "../../plugins/prune/index.ts";

/** Content blocks the provider searches back from a breakpoint for an earlier cache entry. */
export const LOOKBACK_BLOCKS = CACHE_PRICING.lookbackBlocks;

/** What one request costs under one model, in tokens. */
export interface CacheOutcome {
  readTokens: number;
  writeTokens: number;
  /** read x 0.1 + write x 1.25: fresh-input token equivalents. */
  cost: number;
  /** The request did not reuse the whole previous request. */
  broke: boolean;
  /** Every cache entry had expired: the request found the cache cold (read nothing). */
  cold?: boolean;
}

/** A request prepared for the cache models: per-message hashes, tokens and block counts. */
export interface PreparedRequest {
  systemTokens: number;
  /** prefix[j]: hash of the first j messages (prefix[0]: the system prompt alone). */
  prefix: string[];
  tokens: number[];
  blocks: number[];
  total: number;
}

const hashes = new WeakMap<object, string>();

/** Hash of what the model sees of a message (role, content, ids, error flag, summaries); cached per object. */
export function messageHash(m: AgentMessageLike): string {
  let h = hashes.get(m);
  if (h) return h;
  const r = m as Record<string, unknown>;
  const visible = [r.role, r.content, r.toolCallId, r.toolName, r.isError, r.summary, r.command, r.output];
  h = createHash("sha1").update(JSON.stringify(visible)).digest("base64");
  hashes.set(m, h);
  return h;
}

const sizes = new WeakMap<object, number>();
/** Estimated tokens of a message (chars/4); cached per object. */
export function messageTokens(m: AgentMessageLike): number {
  let t = sizes.get(m);
  if (t === undefined) sizes.set(m, (t = tokensOf(messageChars(m))));
  return t;
}

/**
 * Prepares requests for the cache models. Consecutive requests share most message objects, so the
 * prefix hashes of the part that is identical (by object) to the previous request are reused: a
 * session of N requests costs O(total messages) comparisons plus hashing only what changed.
 */
export class RequestPreparer {
  private last: { messages: readonly AgentMessageLike[]; prepared: PreparedRequest } | undefined;

  constructor(private readonly systemTokens: number) {}

  prepare(messages: readonly AgentMessageLike[]): PreparedRequest {
    const prev = this.last;
    let same = 0;
    if (prev) while (same < messages.length && same < prev.messages.length && messages[same] === prev.messages[same]) same++;
    const prefix = prev ? prev.prepared.prefix.slice(0, same + 1) : ["sys"];
    const tokens = prev ? prev.prepared.tokens.slice(0, same) : [];
    const blocks = prev ? prev.prepared.blocks.slice(0, same) : [];
    for (let j = same; j < messages.length; j++) {
      const m = messages[j]!;
      prefix.push(createHash("sha1").update(prefix[j]!).update(messageHash(m)).digest("base64"));
      tokens.push(messageTokens(m));
      blocks.push(Array.isArray(m.content) ? Math.max(1, m.content.length) : 1);
    }
    let total = this.systemTokens;
    for (const t of tokens) total += t;
    const prepared = { systemTokens: this.systemTokens, prefix, tokens, blocks, total };
    this.last = { messages, prepared };
    return prepared;
  }
}

function outcome(req: PreparedRequest, readMessages: number, systemHit: boolean, previousLength: number | undefined, cold: boolean): CacheOutcome {
  let read = systemHit ? req.systemTokens : 0;
  for (let j = 0; j < readMessages; j++) read += req.tokens[j]!;
  const write = req.total - read;
  return {
    readTokens: read,
    writeTokens: write,
    cost: read * CACHE_PRICING.read + write * CACHE_PRICING.write,
    broke: previousLength !== undefined && readMessages < previousLength,
    ...(cold ? { cold } : {}),
  };
}

/**
 * Cache entries by prefix hash with the time of their last use (ms; 0 without times). An entry is
 * alive while `at - lastUse <= lifetimeMs`, or always when either time is unknown.
 */
class Entries {
  private readonly lastUse = new Map<string, number>();

  constructor(private readonly lifetimeMs: number) {}

  alive(hash: string, at: number | undefined): boolean {
    const used = this.lastUse.get(hash);
    if (used === undefined) return false;
    return at === undefined || used < 0 || at - used <= this.lifetimeMs;
  }

  touch(hash: string, at: number | undefined): void {
    this.lastUse.set(hash, at ?? -1);
  }

  /** Whether any entry was used before (a request with none alive then found the cache cold). */
  get used(): boolean {
    return this.lastUse.size > 0;
  }
}

/** The lifetime of a prompt cache entry when the model declares none (Anthropic's default tier), in ms. */
export const DEFAULT_CACHE_LIFETIME_MS = 300_000;

/** Model (a): the longest whole-message prefix any earlier request sent is cached. */
export class PrefixCache {
  private readonly seen: Entries;
  private previous: number | undefined;
  private last: PreparedRequest | undefined;

  /** @param lifetimeMs how long an entry lives after its last use (default 300 s; only with request times) */
  constructor(lifetimeMs = DEFAULT_CACHE_LIFETIME_MS) {
    this.seen = new Entries(lifetimeMs);
  }

  /** Prices `req` sent at `at` (ms; undefined: nothing expires). */
  observe(req: PreparedRequest, at?: number): CacheOutcome {
    const systemHit = this.seen.alive(req.prefix[0]!, at);
    let j = 0;
    if (systemHit) while (j + 1 < req.prefix.length && this.seen.alive(req.prefix[j + 1]!, at)) j++;
    const result = outcome(req, j, systemHit, this.previous, !systemHit && this.seen.used);
    for (const p of req.prefix) this.seen.touch(p, at);
    this.previous = req.prefix.length - 1;
    this.last = req;
    return result;
  }

  /** A cache warming refresh at `at`: the last request again, read whole while it is alive. */
  refresh(at: number): CacheOutcome | undefined {
    const req = this.last;
    if (!req || !this.seen.alive(req.prefix[req.prefix.length - 1]!, at)) return undefined;
    for (const p of req.prefix) this.seen.touch(p, at);
    return outcome(req, req.prefix.length - 1, true, undefined, false);
  }
}

/** Model (b): reads only up to a breakpoint an earlier request wrote, within LOOKBACK_BLOCKS of the end. */
export class BreakpointCache {
  private readonly written: Entries;
  private previous: number | undefined;
  private last: PreparedRequest | undefined;

  /** @param lifetimeMs how long an entry lives after its last use (default 300 s; only with request times) */
  constructor(lifetimeMs = DEFAULT_CACHE_LIFETIME_MS) {
    this.written = new Entries(lifetimeMs);
  }

  /** Prices `req` sent at `at` (ms; undefined: nothing expires). */
  observe(req: PreparedRequest, at?: number): CacheOutcome {
    const n = req.prefix.length - 1;
    const systemHit = this.written.alive(req.prefix[0]!, at);
    let hit = 0;
    if (systemHit) {
      let back = 0;
      for (let j = n; j > 0 && back <= LOOKBACK_BLOCKS; j--) {
        if (this.written.alive(req.prefix[j]!, at)) {
          hit = j;
          break;
        }
        back += req.blocks[j - 1]!;
      }
    }
    const result = outcome(req, hit, systemHit, this.previous, !systemHit && this.written.used);
    // The entry read is used again (its lifetime starts over); the request writes its own breakpoints.
    if (hit > 0) this.written.touch(req.prefix[hit]!, at);
    this.written.touch(req.prefix[0]!, at);
    this.written.touch(req.prefix[n]!, at);
    this.previous = n;
    this.last = req;
    return result;
  }

  /** A cache warming refresh at `at`: the last request again, read whole while its entry is alive. */
  refresh(at: number): CacheOutcome | undefined {
    const req = this.last;
    const n = req ? req.prefix.length - 1 : 0;
    if (!req || !this.written.alive(req.prefix[n]!, at)) return undefined;
    this.written.touch(req.prefix[0]!, at);
    this.written.touch(req.prefix[n]!, at);
    return outcome(req, n, true, undefined, false);
  }
}

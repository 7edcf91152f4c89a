/**
 * When the provider's prompt cache goes cold, from the messages' timestamps.
 *
 * A provider keeps a cache entry for a lifetime after its last use (Anthropic: 5 minutes, 1 hour with
 * long retention; pi 1.x models declare it as `promptCache.short`/`long`), so the first request after
 * a longer gap (the user read the answer and left, a long build ran, the session was resumed the next
 * day) is written in full whatever the prompt holds. Its time is the newest message's (the prompt or
 * the tool result it answers); the cache was last used by the previous request, whose reply is the
 * newest assistant message, or by a later cache warming refresh of the host (`warmedAt`). On such a
 * cold request every pending step is free of cache cost: the pruner takes it then.
 */
import type { AgentMessageLike } from "../../core/index.ts";

/** The lifetime of a cache entry when neither the config nor the model sets one (seconds). */
export const DEFAULT_CACHE_LIFETIME_SECONDS = 300;

/** How long cache entries live, and when the cache was last used, for one request. */
export interface RequestCache {
  /** The request's time (ms since the epoch): the newest message's timestamp. */
  now: number;
  /** When the cache was last used (ms): the previous request or a later warming refresh. */
  lastUse: number;
  /** Entry lifetime (ms). */
  lifetimeMs: number;
  /** True when the gap exceeds the lifetime: the request finds the cache cold. */
  cold: boolean;
}

/** A message's timestamp (ms), when it has a usable one. */
function timeOf(m: AgentMessageLike): number | undefined {
  const t = (m as { timestamp?: unknown }).timestamp;
  return typeof t === "number" && Number.isFinite(t) && t > 0 ? t : undefined;
}

/**
 * The cache clock of a request sending `messages`, or undefined when it cannot be known (no earlier
 * request in the messages, or timestamps missing). `lifetimeSeconds`: the entry lifetime in force;
 * `warmedAt`: the host's last warming refresh (ms), if any. Reads only the messages after the newest
 * assistant message, and that one.
 */
export function requestCache(messages: readonly AgentMessageLike[], lifetimeSeconds: number, warmedAt?: number): RequestCache | undefined {
  let now: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const t = timeOf(m);
    if (m.role !== "assistant") {
      if (t !== undefined && (now === undefined || t > now)) now = t;
      continue;
    }
    if (now === undefined || t === undefined) return undefined;
    const lastUse = warmedAt !== undefined && warmedAt > t ? warmedAt : t;
    const lifetimeMs = lifetimeSeconds * 1000;
    return { now, lastUse, lifetimeMs, cold: now - lastUse > lifetimeMs };
  }
  return undefined;
}

/**
 * The provider's prompt cache as pi knows it, for the pipeline: the lifetime the model declares
 * (pi 1.x `promptCache.short`/`long`, for the retention in use), the cache warming refreshes pi
 * recorded (`usage` entries of kind `cache_warm`), and pi's `cache_warming_decision` (pi 0.87 and
 * later) bound to the `cacheWarming` hook.
 *
 * Detected by what pi offers, not by version: a model without `promptCache` gives no lifetime, a pi
 * that never fires the event never runs the hook, and the session's branch is read for refreshes only
 * after pi asked about one (nothing is read on lines without warming).
 */
import type { CacheWarmingAction, PromptCacheInfo } from "../../core/prompt-cache.ts";
import type { BoundSession } from "./bound-session.ts";
import type { PiApi, PiContext } from "./pi-api.ts";

type Entry = { type?: unknown; kind?: unknown; timestamp?: unknown; message?: { role?: unknown; usage?: unknown } };
type BranchSource = { getBranch?: () => readonly Entry[] };

/** The lifetime (seconds) the model declares for the retention in use (`PI_CACHE_RETENTION=long`: the long tier), if any. */
export function declaredLifetime(model: unknown, env: Readonly<Record<string, string | undefined>>): number | undefined {
  const tiers = (model as { promptCache?: { short?: unknown; long?: unknown } } | undefined)?.promptCache;
  const seconds = env.PI_CACHE_RETENTION === "long" ? tiers?.long : tiers?.short;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/**
 * The newest `cache_warm` usage entry after the last assistant message on the branch (ms), and the
 * last request's prompt tokens as the provider counted them (input, cache read and written).
 */
export function branchCacheFacts(sessionManager: unknown): { warmedAt?: number; promptTokens?: number } {
  const branch = (sessionManager as BranchSource | undefined)?.getBranch?.();
  if (!Array.isArray(branch)) return {};
  let warmedAt: number | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i]!;
    if (e.type === "usage" && e.kind === "cache_warm" && warmedAt === undefined) {
      const at = Date.parse(String(e.timestamp));
      if (Number.isFinite(at)) warmedAt = at;
    } else if (e.type === "message" && e.message?.role === "assistant") {
      const u = e.message.usage as { input?: unknown; cacheRead?: unknown; cacheWrite?: unknown } | undefined;
      const tokens = [u?.input, u?.cacheRead, u?.cacheWrite].reduce<number>((sum, v) => sum + (typeof v === "number" && v > 0 ? v : 0), 0);
      return { ...(warmedAt !== undefined ? { warmedAt } : {}), ...(tokens > 0 ? { promptTokens: tokens } : {}) };
    }
  }
  return warmedAt !== undefined ? { warmedAt } : {};
}

/** The `context` event's cache facts (see {@link bindPromptCache}). */
export interface PromptCacheBinding {
  promptCache(ctx: PiContext): PromptCacheInfo | undefined;
}

/** Binds pi's cache warming to the session governor's `cacheWarming` hook; `promptCache(ctx)` gives the `context` event's cache facts. */
export function bindPromptCache(
  pi: PiApi,
  session: Pick<BoundSession, "attach">,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PromptCacheBinding {
  // Sessions pi asked about a refresh since their last request: only they can have one to read.
  const asked = new Set<string>();
  // Older lines never fire it.
  pi.on("cache_warming_decision", async (event, ctx) => {
    const hostAction = event.action === "stop" ? "stop" : "warm";
    const number = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
    const { pipeline } = await session.attach(ctx);
    const sessionId = ctx.sessionManager.getSessionId();
    asked.add(sessionId);
    if (!pipeline.hooks.cacheWarming.taps().length) return undefined;
    const { promptTokens } = branchCacheFacts(ctx.sessionManager);
    const model = ctx.model;
    const action: CacheWarmingAction = await pipeline.hooks.cacheWarming.run(hostAction, {
      sessionId,
      warmCost: number(event.warmCost),
      missCost: number(event.missCost),
      continuationProbability: number(event.continuationProbability),
      hostAction,
      idle: ctx.isIdle(),
      ...(promptTokens !== undefined ? { promptTokens } : {}),
      ...(model ? { model: { provider: String(model.provider), id: model.id } } : {}),
    });
    // Only a change is an answer: the last handler that returns an action wins in pi.
    return action === hostAction ? undefined : { action };
  });
  return {
    promptCache(ctx) {
      const lifetimeSeconds = declaredLifetime(ctx.model, env);
      const sessionId = ctx.sessionManager.getSessionId();
      const warmedAt = asked.delete(sessionId) ? branchCacheFacts(ctx.sessionManager).warmedAt : undefined;
      if (lifetimeSeconds === undefined && warmedAt === undefined) return undefined;
      return { ...(lifetimeSeconds !== undefined ? { lifetimeSeconds } : {}), ...(warmedAt !== undefined ? { warmedAt } : {}) };
    },
  };
}

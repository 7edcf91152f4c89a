/**
 * Context policies the replay CLI and the bench compare. The governor's policy is the real fold and
 * prune plugins run through a real pipeline (createGovernor), never a reimplementation.
 */
import { type AgentMessageLike, definePreset, type GovernorPlugin } from "../../core/index.ts";
import { type ConfigLayer, createGovernor } from "../../host/index.ts";
import { estimateTokens as tokensOf, messagesChars } from "../../lib/size/index.ts";
import { fold } from "../../plugins/fold/index.ts";
import { prune, RESULT_ONLY_PRUNING } from "../../plugins/prune/index.ts";

/** What a request knows of the prompt cache's clock (requests with times only): its lifetime and the last warming refresh. */
export interface RequestClock {
  lifetimeSeconds: number;
  /** Time of the last cache warming refresh since the previous request (ms), if any. */
  warmedAt?: number;
}

/** One refresh pi's cache warming is about to send (warming.ts), and pi's decision. */
export interface WarmingQuestion {
  warmCost: number;
  missCost: number;
  continuationProbability: number;
  action: "warm" | "stop";
  idle: boolean;
  promptTokens: number;
}

/**
 * One session under a policy: the context sent for each request, and optionally the policy's
 * answer to pi's cache warming (undefined: pi's decision stands) and the cost of its own model calls.
 */
export type PolicyRun = ((messages: AgentMessageLike[], clock?: RequestClock) => Promise<AgentMessageLike[]>) & {
  cacheWarming?: (question: WarmingQuestion) => Promise<"warm" | "stop" | undefined>;
  /** What the policy's own model calls (a summariser) cost since it was last asked, in fresh-input token equivalents. */
  takeSideCost?: () => number;
};

/** One way of turning the history into the context that is sent. */
export interface Policy {
  /** Short name for tables. */
  name: string;
  /** Starts a fresh run (one session). */
  start(): Promise<PolicyRun>;
}

/** Sends the full history. */
export const noPruning: Policy = { name: "no pruning", start: async () => async (messages) => messages };

/** Options for {@link governorPolicy}. */
export interface GovernorPolicyOptions {
  name?: string;
  /** Config layers (the user's files); only their `prune` and `fold` sections are used. */
  layers?: ConfigLayer[];
  /** `prune` options from code, applied last. */
  prune?: Record<string, unknown>;
  /** `fold` options from code, applied last (`{ enabled: false }`: no folding). */
  fold?: Record<string, unknown>;
  /** Context window in tokens reported to the pipeline. Default 200000. */
  contextWindow?: number;
  /** The prune plugin with a preset's defaults (the kota preset's: `kotaPrune`). Default `prune()`. */
  plugin?: () => GovernorPlugin<any>;
}

/** The configured context pipeline with the fold and prune plugins, as pi would run it. */
export function governorPolicy(options: GovernorPolicyOptions = {}): Policy {
  const preset = definePreset({ name: "replay", description: "The fold and prune plugins", plugins: () => [fold(), (options.plugin ?? prune)()] });
  const layers = (options.layers ?? [])
    .filter((l) => l.data.prune !== undefined || l.data.fold !== undefined)
    .map((l) => ({
      ...l,
      data: { ...(l.data.prune !== undefined ? { prune: l.data.prune } : {}), ...(l.data.fold !== undefined ? { fold: l.data.fold } : {}) },
    }));
  const overrides = { ...(options.prune ? { prune: options.prune } : {}), ...(options.fold ? { fold: options.fold } : {}) };
  return {
    name: options.name ?? "pi-governor prune",
    async start() {
      const governor = await createGovernor({
        preset,
        cwd: process.cwd(),
        agentDir: "",
        env: {},
        layers,
        ...(Object.keys(overrides).length ? { overrides } : {}),
      });
      const usage = { tokens: null, contextWindow: options.contextWindow ?? 200_000, percent: null };
      const hooks = governor.pipeline.hooks;
      const run: PolicyRun = (messages, clock) =>
        hooks.context.run(messages, {
          sessionId: "replay",
          usage,
          ...(clock ? { promptCache: { lifetimeSeconds: clock.lifetimeSeconds, ...(clock.warmedAt !== undefined ? { warmedAt: clock.warmedAt } : {}) } } : {}),
        });
      run.cacheWarming = async (q) => {
        const action = await hooks.cacheWarming.run(q.action, {
          sessionId: "replay",
          warmCost: q.warmCost,
          missCost: q.missCost,
          continuationProbability: q.continuationProbability,
          hostAction: q.action,
          idle: q.idle,
          promptTokens: q.promptTokens,
        });
        return action === q.action ? undefined : action;
      };
      return run;
    },
  };
}

/**
 * Today's plugin: the same pipeline and prune settings, with the meaning-based strategies (dedup,
 * stale reads, argument cuts, folding) off and the step rule as it was (RESULT_ONLY_PRUNING applied
 * last). The replay and the bench compare the configured plugin against it on the same sessions.
 */
export function resultOnlyPolicy(options: GovernorPolicyOptions = {}): Policy {
  return governorPolicy({
    ...options,
    name: options.name ?? "today's plugin",
    prune: { ...options.prune, ...RESULT_ONLY_PRUNING },
    fold: { ...options.fold, enabled: false },
  });
}

/** Keep the last 2 turns and prune every older prunable result on every request (no boundary, no cache care). */
export function keepLastTurnsEveryRequest(turns = 2): Policy {
  return governorPolicy({ name: `keep-last-${turns}, every turn`, prune: { keepRecentTurns: turns, adaptive: false, cacheAware: false, minStepTokens: 0 } });
}

/**
 * Per request, when the context is above `aboveTokens`: every tool result but the last `keep` is
 * replaced by a short "cleared" note (the shape of provider-side "clear tool uses" context editing).
 */
export function clearOldToolResults(aboveTokens = 100_000, keep = 3, systemTokens = 0): Policy {
  return {
    name: `clear all but last ${keep} results > ${Math.round(aboveTokens / 1000)}k`,
    async start() {
      const cleared = new WeakMap<object, AgentMessageLike>();
      return async (messages) => {
        if (systemTokens + tokensOf(messagesChars(messages)) <= aboveTokens) return messages;
        const out = messages.slice();
        let seen = 0;
        for (let i = out.length - 1; i >= 0; i--) {
          const m = out[i]!;
          if (m.role !== "toolResult") continue;
          if (++seen <= keep) continue;
          let c = cleared.get(m);
          if (!c) cleared.set(m, (c = { ...m, content: [{ type: "text", text: "[tool result cleared]" }] }));
          out[i] = c;
        }
        return out;
      };
    },
  };
}

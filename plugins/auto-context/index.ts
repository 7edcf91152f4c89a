/**
 * `governor:auto-context` (config key `autoContext`; on/off via `kota.autoContext`):
 * before a prompt runs (`beforeAgentStart`, INJECT_STAGE.BRIEFING) it finds 1-3 file paths in the prompt and
 * injects a small KotaDB briefing for them. Cached per path set and git HEAD. When the repository is
 * not indexed it asks to index (the kota plugin's confirmation rules apply). Bounded in time; any
 * failure means no briefing, never a broken prompt. Needs the `kota:runtime` service (the kota
 * plugin in the preset; the host applies it first); with the kota plugin off, autoContext is off too.
 */
import { definePlugin, INJECT_STAGE, type Injection } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { KOTA_RUNTIME } from "../kota/index.ts";
import { gitHead } from "../../lib/git/index.ts";
import { gatherFacts, renderBriefing } from "./briefing.ts";
import { withinDeadline } from "./bounded.ts";
import { autoContextDefaults, autoContextSchema } from "./config.ts";
import { mentionedFiles } from "./paths.ts";

/** Plugin name. */
export const AUTO_CONTEXT_PLUGIN = "governor:auto-context";

/** The autoContext plugin factory. */
export const autoContext = definePlugin({
  name: AUTO_CONTEXT_PLUGIN,
  configKey: "autoContext",
  description: "Injects a small KotaDB briefing (dependencies, dependents, tests) when a prompt names 1-3 files; mode from kota.autoContext.",
  schema: autoContextSchema,
  defaults: autoContextDefaults,
  requires: [KOTA_RUNTIME],
  apply(pipeline, config, services) {
    const logger = services.logger;
    const runtime = services.need(KOTA_RUNTIME);
    const cache = new Map<string, string>();
    const overviewShown = new Set<string>();

    pipeline.hooks.beforeAgentStart.tap(
      { name: AUTO_CONTEXT_PLUGIN, stage: INJECT_STAGE.BRIEFING },
      async (injections, info): Promise<Injection[] | undefined> => {
        const mode = config.mode === "inherit" ? runtime.config.autoContext : config.mode;
        if (mode === "off") return undefined;
        try {
          const root = await runtime.root();
          const files = mentionedFiles(info.prompt, root);
          if (files.length > config.maxPaths) {
            services
              .ui()
              .notify(
                `autoContext: the prompt names ${files.length} files (more than ${config.maxPaths}); no briefing injected. Ask for kota_task_context on the files that matter.`,
                "info",
              );
            return undefined;
          }
          if (files.length === 0) {
            if (mode !== "always") return undefined;
            return await overview(injections, info.sessionId, root);
          }
          const head = (await gitHead(root)) ?? "no-head";
          const key = `${head}\u0000${[...files].sort().join("\u0000")}`;
          const cached = cache.get(key);
          if (cached) return [...injections, { source: AUTO_CONTEXT_PLUGIN, text: cached }];

          if (!(await ensureIndex(info.signal))) return undefined;
          const facts = await withinDeadline(services.clock, config.timeoutMs, info.signal, (signal) => gatherFacts(runtime, files, signal));
          if (!facts) {
            logger.info("autoContext: no briefing (KotaDB did not answer in time or failed)", { files, timeoutMs: config.timeoutMs });
            return undefined;
          }
          const text = renderBriefing(facts, config.maxBytes);
          if (config.cacheEntries > 0) {
            cache.set(key, text);
            if (cache.size > config.cacheEntries) cache.delete(cache.keys().next().value!);
          }
          return [...injections, { source: AUTO_CONTEXT_PLUGIN, text }];
        } catch (error) {
          logger.warn("autoContext failed; prompt continues without a briefing", { error: errorText(error) });
          return undefined;
        }
      },
    );

    /** Indexed (or stale) now, or after an index run this prompt may wait for. */
    async function ensureIndex(signal: AbortSignal | undefined): Promise<boolean> {
      const probed = await withinDeadline(services.clock, config.timeoutMs, signal, async (s) => {
        await runtime.probe(s);
        return true;
      });
      if (!probed) return false;
      if ((await runtime.indexState()) !== "no") return true;
      if (!config.askToIndex) return false;
      const outcome = await withinDeadline(services.clock, config.indexWaitMs, signal, (s) =>
        runtime.indexer.request({ ui: services.ui(), requester: "autoContext", signal: s }),
      );
      return outcome?.status === "indexed";
    }

    /** "always" without paths: one line about the index, once per session and HEAD. */
    async function overview(injections: Injection[], sessionId: string, root: string): Promise<Injection[] | undefined> {
      const key = `${sessionId}\u0000${(await gitHead(root)) ?? ""}`;
      if (overviewShown.has(key)) return undefined;
      overviewShown.add(key);
      const state = await runtime.indexState();
      const text =
        state === "no"
          ? "[autoContext] This repository is not indexed by KotaDB yet; kota_index indexes it (the user is asked first)."
          : `[autoContext] KotaDB index: ${state === "stale" ? "stale (kota_index refreshes it)" : "up to date"}. Name files in a request for a briefing; kota_deps, kota_usages, kota_impact and kota_search answer from the index.`;
      return [...injections, { source: AUTO_CONTEXT_PLUGIN, text }];
    }
  },
});

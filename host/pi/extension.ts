import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { PiExtensionApi } from "./extension-api.ts";
import type { AgentMessageLike } from "../../core/content.ts";
import { agentDirFrom } from "../config/layers.ts";
import type { Governor } from "../../core/governor.ts";
import { createGovernor, type GovernorOptions } from "../governor.ts";
import { observationDetails } from "../../core/observation.ts";
import { resultMeta } from "../../core/result-meta.ts";
import { isNestedResult, type PiToolResultFields, resultPatch } from "./result-patch.ts";
import { bindHostCallEvents, withPiMcpNextStep } from "./host-call-events.ts";
import type { Preset } from "../../core/plugin.ts";
import type { ToolResultValue } from "../../core/tool-types.ts";
import type { UiBridge } from "../../core/services.ts";
import { type MountedCommands, mountCommands } from "./commands.ts";
import { RunBoundary } from "./run-boundary.ts";
import { RunStop } from "./run-stop.ts";
import { piHonoursTerminate } from "./tool-annotations.ts";
import { SessionGovernors } from "./session-governors.ts";
import { bindPromptCache } from "./prompt-cache.ts";
import { appliesContextEdits, sessionMessageEntries, sessionRecords } from "./session-entries.ts";
import { commandUiBridgeFrom, sessionStoreFrom, uiBridgeFrom } from "./ui-bridge.ts";

/** Options for {@link createExtension}. */
export interface ExtensionOptions {
  /** Presets a config file may switch to with `"preset": "<name>"`. */
  presets?: readonly Preset[];
  /** Config from code, applied over every file (trusted). */
  overrides?: Record<string, unknown>;
  /** Called with each governor built: at load, and again for a session whose cwd differs (tests, embedding). */
  onGovernor?: (governor: Governor) => void;
  /**
   * Replaces how the governor is built (tests inject clocks or layers). `cwd` here is only the
   * directory guessed at load (default `process.cwd()`): the session's `ctx.cwd` always wins.
   */
  governorOptions?: Partial<GovernorOptions>;
}

type PiToolResult = { content: never[]; details: Record<string, unknown> };

/**
 * Returns a pi extension factory for `preset`: pi calls it with its ExtensionAPI, and the pipeline
 * is bound to pi's events (`tool_call`, `tool_result`, `context`, `before_agent_start`,
 * `agent_start` (a run's start only when a prompt, not pi's own retry or continue, led to it: see
 * run-boundary.ts), `agent_settled`, `turn_start`, `turn_end` (an observer, and on pi 0.87+ the boundary that takes context edits), `session_start`, `session_shutdown`,
 * and on pi lines with cache warming (0.87+) `cache_warming_decision`), the plugins' tools and commands are registered, and `/governor status` is added.
 *
 * The factory does not know the session's cwd (pi gives it none), so it builds the governor for
 * `governorOptions.cwd`, else `process.cwd()`, to register the tools at load; the first event of a
 * session whose `ctx.cwd` differs (the SDK's `createAgentSession({ cwd })`, `/resume` or `/fork`
 * into another project) rebuilds the governor there: see {@link SessionGovernors}.
 */
export function createExtension(preset: Preset, options: ExtensionOptions = {}): (pi: PiExtensionApi) => Promise<void> {
  return async (pi: PiExtensionApi) => {
    const build = async (cwd: string) => {
      const governor = await createGovernor({
        preset,
        presets: options.presets ?? [],
        agentDir: agentDirFrom(process.env),
        env: process.env,
        ...(options.overrides ? { overrides: options.overrides } : {}),
        ...options.governorOptions,
        cwd,
      });
      options.onGovernor?.(governor);
      return governor;
    };
    const firstCwd = options.governorOptions?.cwd ?? process.cwd();
    bindGovernor(pi, await build(firstCwd), { cwd: firstCwd, rebuild: build });
  };
}

/** How {@link bindGovernor} follows the session's cwd. */
export interface BindOptions {
  /** The directory `governor` was built for. */
  cwd: string;
  /** Builds the governor of another cwd. Without it the given governor serves every cwd. */
  rebuild?: (cwd: string) => Promise<Governor>;
}

/** How a governed call ended, from the details its execute returned (undefined for other tools' results). */
const observedStatus = (details: unknown): string | undefined =>
  resultMeta({ details: (details ?? undefined) as Record<string, unknown> | undefined }).call?.status;

/** Footer status key for problems found at load. */
const PROBLEMS_STATUS_KEY = "governor";

/**
 * Binds a built governor to pi. Exposed for embedders that build the governor themselves; with
 * `options.rebuild` the binding switches to a governor of the session's cwd on the first event that
 * carries another `ctx.cwd` (tools and command roots the new governor adds are registered then;
 * tools it lacks are deactivated and answer with an error naming the cwd).
 */
export function bindGovernor(api: PiExtensionApi, governor: Governor, options: BindOptions = { cwd: process.cwd() }): void {
  // The public signature names no pi (see extension-api.ts); inside, the current pi's own types.
  const pi = api as unknown as ExtensionAPI;
  const registeredTools = new Set<string>();
  const deactivated = new Set<string>();
  const announced = new WeakSet<Governor>();
  let sessionId = "";
  let commands: MountedCommands | undefined;

  const onChange = (next: Governor) => {
    for (const name of next.pipeline.tools.keys()) if (!registeredTools.has(name)) registerTool(name, next);
    commands?.sync(next);
    try {
      const missing = [...registeredTools].filter((n) => !next.pipeline.tools.has(n));
      const back = [...deactivated].filter((n) => next.pipeline.tools.has(n));
      if (!missing.length && !back.length) return;
      const active = new Set(pi.getActiveTools());
      for (const n of missing) if (active.delete(n)) deactivated.add(n);
      for (const n of back) active.add(n), deactivated.delete(n);
      pi.setActiveTools([...active]);
    } catch {
      // Before pi bound the session the active set cannot be changed; execute still refuses the tool.
    }
  };
  const governors = new SessionGovernors(governor, options.cwd, options.rebuild ?? (async () => governor), onChange);
  const forCwd = options.rebuild ? (cwd: string) => governors.forCwd(cwd, sessionId) : async () => governor;

  /** The session's governor, attached to this ctx (id, UI, store), with its problems shown once. */
  const attach = async (ctx: ExtensionContext): Promise<Governor> => {
    const g = await forCwd(ctx.cwd);
    sessionId = ctx.sessionManager.getSessionId();
    const ui = uiBridgeFrom(ctx);
    g.attachSession(sessionId, ui, sessionStoreFrom(pi, ctx));
    announce(g, ui);
    return g;
  };

  const announce = (g: Governor, ui: UiBridge) => {
    if (announced.has(g)) return;
    announced.add(g);
    const problems = g.problems();
    const degraded = g.degraded();
    const lines = [...problems, ...degraded];
    if (!lines.length) return ui.setStatus(PROBLEMS_STATUS_KEY, undefined);
    if (lines.length === 1 && !problems.length) {
      // One thing degraded (a missing SQLite driver, a server that did not start): that line alone.
      ui.notify(`pi-governor: ${lines[0]}`, "warning");
      return ui.setStatus(PROBLEMS_STATUS_KEY, "governor: 1 warning at load (/governor status)");
    }
    const counts = [problems.length ? `${problems.length} config problem(s)` : "", degraded.length ? `${degraded.length} warning(s) at load` : ""]
      .filter(Boolean)
      .join(", ");
    const more = lines.length > 5 ? `\n... and ${lines.length - 5} more` : "";
    ui.notify(`pi-governor: ${counts}; running on the valid parts. /governor status lists them.\n${lines.slice(0, 5).join("\n")}${more}`, "warning");
    ui.setStatus(PROBLEMS_STATUS_KEY, `governor: ${counts} (/governor status)`);
  };

  // A stopped run ends, also where pi does not end it after the batch (see run-stop.ts).
  const runStop = new RunStop(piHonoursTerminate(pi));
  const hostCalls = bindHostCallEvents(
    pi,
    attach,
    () => sessionId,
    () => runStop.stopped(),
  );

  // The model's cache lifetime and pi's cache warming (prompt-cache.ts; pi 0.87+).
  const cache = bindPromptCache(pi, attach);

  function registerTool(name: string, owner: Governor): void {
    registeredTools.add(name);
    const def = owner.pipeline.tools.get(name)!.definition;
    pi.registerTool({
      name,
      label: def.label ?? name,
      description: def.description,
      parameters: def.parameters as never,
      ...(def.promptSnippet ? { promptSnippet: def.promptSnippet } : {}),
      ...(def.promptGuidelines ? { promptGuidelines: def.promptGuidelines } : {}),
      async execute(toolCallId, params, signal, onUpdate, ctx) {
        const { pipeline } = await attach(ctx);
        if (!pipeline.tools.has(name)) {
          throw new Error(
            `${name} is not available in this session: the pi-governor config for ${ctx.cwd} does not offer it (/governor status lists the tools).`,
          );
        }
        const parentToolCallId = hostCalls.parentOf(toolCallId);
        const obs = await pipeline.callTool(name, (params ?? {}) as Record<string, unknown>, {
          toolCallId,
          ...(parentToolCallId ? { parentToolCallId } : {}),
          sessionId,
          ...(signal ? { signal } : {}),
          ...(onUpdate ? { onUpdate: (p) => onUpdate({ content: p.content as never[], details: p.details ?? {} }) } : {}),
        });
        return { content: obs.content as never[], details: observationDetails(obs) } satisfies PiToolResult;
      },
    });
  }

  for (const name of governor.pipeline.tools.keys()) registerTool(name, governor);

  commands = mountCommands(
    pi,
    () => governors.governor,
    async (ctx) => {
      await attach(ctx);
      return { ui: commandUiBridgeFrom(ctx), cwd: ctx.cwd, sessionId };
    },
  );

  pi.on("session_start", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    await pipeline.hooks.sessionStart.run({ sessionId, cwd: ctx.cwd, reason: event.reason });
  });

  pi.on("session_shutdown", async (event, ctx) => {
    // The governor in use, never a new one: shutting down must not build anything.
    await governors.governor.pipeline.hooks.sessionShutdown.run({ sessionId: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, reason: event.reason });
  });

  // A run is what a prompt starts; pi's own retries and continues inside it are not new runs.
  const runs = new RunBoundary();
  pi.on("agent_start", async (_event, ctx) => {
    const { pipeline } = await attach(ctx);
    if (!runs.agentStarted()) return;
    runStop.newRun();
    await pipeline.hooks.runStart.run({ sessionId });
  });
  // pi 0.87+: pi will not continue by itself; what starts next is a new run.
  (pi.on as (event: string, handler: () => void) => void)("agent_settled", () => runs.expectNewRun());

  pi.on("turn_start", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    await pipeline.hooks.turnStart.run({ sessionId, turnIndex: event.turnIndex });
  });

  // An observer: pi 1.x lets a turn_end handler propose session entries, and this one proposes none
  // (it returns nothing), so the turnEnd taps cannot change the session.
  pi.on("turn_end", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const toolResults = Array.isArray(event.toolResults) ? event.toolResults.length : 0;
    await pipeline.hooks.turnEnd.run({ sessionId, turnIndex: event.turnIndex, toolResults });
    return undefined;
  });

  pi.on("tool_result", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const governed = pipeline.tools.get(event.toolName);
    const status = observedStatus(event.details);
    const failedGoverned = governed !== undefined && status !== undefined && status !== "SUCCESS";
    // A nested call's result is the calling script's input, not the model's: no stage cuts, stores
    // or annotates it. Only a failed call of pi-governor's own tool is flagged, so the script's call rejects.
    if (isNestedResult(event as PiToolResultFields)) return failedGoverned && !event.isError ? { isError: true } : undefined;
    const value: ToolResultValue = {
      toolName: event.toolName,
      toolCallId: event.toolCallId,
      input: event.input,
      content: event.content as ToolResultValue["content"],
      details: (event.details ?? undefined) as Record<string, unknown> | undefined,
      isError: event.isError,
    };
    if (failedGoverned) value.isError = true;
    const out = await pipeline.hooks.toolResult.run(value, { tool: governed?.info, sessionId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    return resultPatch(event as PiToolResultFields, withPiMcpNextStep(out, (event as PiToolResultFields).structuredContent)) as never;
  });

  pi.on("context", async (event, ctx) => {
    if (runStop.beforeRequest()) {
      ctx.abort();
      return undefined;
    }
    // Re-attach here too: after /reload without UI bindings pi emits no session_start, and the
    // context plugins' session records (the pruning boundary, pins) must come from this session.
    const { pipeline } = await attach(ctx);
    const usage = ctx.getContextUsage();
    const model = ctx.model;
    const sm = ctx.sessionManager as unknown;
    const promptCache = cache.promptCache(ctx);
    const messages = await pipeline.hooks.context.run(event.messages as AgentMessageLike[], {
      sessionId: ctx.sessionManager.getSessionId(),
      ...(usage ? { usage } : {}),
      ...(model ? { model: { provider: String(model.provider), id: model.id } } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(appliesContextEdits(sm) ? { sessionEntries: () => sessionMessageEntries(sm), sessionRecords: (kind: string) => sessionRecords(sm, kind) } : {}),
      ...(promptCache ? { promptCache } : {}),
    });
    return messages === (event.messages as unknown) ? undefined : { messages: messages as never };
  });

  // pi 0.87+: `turn_end` is an actionable boundary whose handlers may append session entries
  // (`event.entries`, `event.context`). Older lines have neither: nothing runs there.
  pi.on("turn_end", async (event, ctx) => {
    const boundary = event as unknown as { entries?: unknown; context?: { contextEntries?: unknown }; outcome?: unknown; turnIndex?: number };
    if (!Array.isArray(boundary.entries) || !Array.isArray(boundary.context?.contextEntries)) return undefined;
    const sm = ctx.sessionManager as unknown;
    if (boundary.outcome !== "completed" || !appliesContextEdits(sm)) return undefined;
    const { pipeline } = await attach(ctx);
    if (!pipeline.hooks.contextEdits.taps().length) return undefined;
    const proposed = boundary.entries as unknown[];
    const drafts = await pipeline.hooks.contextEdits.run([], {
      sessionId,
      turnIndex: boundary.turnIndex ?? 0,
      entries: () => sessionMessageEntries(sm, proposed),
      records: (kind: string) => sessionRecords(sm, kind),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    // Only what this handler adds; the entries proposed so far are kept, as pi's docs require.
    return drafts.length ? ({ entries: [...proposed, ...drafts] } as never) : undefined;
  });

  pi.on("before_agent_start", async (event, ctx) => {
    runs.expectNewRun();
    const { pipeline } = await attach(ctx);
    // pi 1.x also starts runs from custom messages (`sendMessage(..., { triggerTurn })`): no user prompt then.
    const prompt = "prompt" in event && typeof event.prompt === "string" ? event.prompt : "";
    const injections = await pipeline.hooks.beforeAgentStart.run([], { prompt, cwd: ctx.cwd, sessionId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (!injections.length) return undefined;
    return {
      message: {
        customType: "pi-governor",
        content: injections.map((i) => i.text).join("\n\n"),
        display: true,
        details: { sources: injections.map((i) => i.source) },
      },
    };
  });
}

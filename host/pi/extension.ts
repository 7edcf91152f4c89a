import type { Governor } from "../../core/governor.ts";
import type { Preset } from "../../core/plugin.ts";
import { agentDirFrom } from "../config/layers.ts";
import { createGovernor, type GovernorOptions } from "../governor.ts";
import { type BindOptions, BoundSession } from "./bound-session.ts";
import { type MountedCommands, mountCommands } from "./commands.ts";
import { bindContext } from "./context-events.ts";
import type { PiExtensionApi } from "./extension-api.ts";
import { bindToolCalls, type ToolCallBinding } from "./host-call-events.ts";
import { bindLifecycle } from "./lifecycle-events.ts";
import { piApiOf } from "./pi-api.ts";
import { bindPromptCache } from "./prompt-cache.ts";
import { commandUiBridgeFrom } from "./ui-bridge.ts";
import { bindUserShell } from "./user-shell-events.ts";

export type { BindOptions } from "./bound-session.ts";

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
 * into another project) rebuilds the governor there: see session-governors.ts.
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

/**
 * Binds a built governor to pi. Exposed for embedders that build the governor themselves; with
 * `options.rebuild` the binding switches to a governor of the session's cwd on the first event that
 * carries another `ctx.cwd` (tools and command roots the new governor adds are registered then;
 * tools it lacks are deactivated and answer with an error naming the cwd). The events are bound by
 * concern, one handler per event and concern: a tool call's (host-call-events.ts), the user's shell
 * commands (user-shell-events.ts), the prompt cache (prompt-cache.ts), the session's, runs' and
 * turns' (lifecycle-events.ts) and the context's (context-events.ts); the shell's handlers of
 * `session_start`, `agent_start` and `turn_start` run before the lifecycle's.
 */
export function bindGovernor(api: PiExtensionApi, governor: Governor, options: BindOptions = { cwd: process.cwd() }): void {
  const pi = piApiOf(api);
  let calls: ToolCallBinding | undefined;
  let commands: MountedCommands | undefined;
  const session = new BoundSession(pi, governor, options, (next) => {
    calls?.registerTools(next);
    commands?.sync(next);
    calls?.activateTools(next);
  });
  calls = bindToolCalls(pi, session);
  bindUserShell(pi, session);
  // The model's cache lifetime and pi's cache warming (prompt-cache.ts; pi 0.87+).
  const cache = bindPromptCache(pi, session);
  commands = mountCommands(
    pi,
    () => session.governor,
    async (ctx) => {
      await session.attach(ctx);
      return { ui: commandUiBridgeFrom(ctx), cwd: ctx.cwd, sessionId: session.sessionId };
    },
  );
  bindLifecycle(pi, session, calls);
  bindContext(pi, session, calls, cache);
}

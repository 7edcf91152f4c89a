import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { AgentMessageLike } from "../content.ts";
import { agentDirFrom } from "../config/layers.ts";
import { createGovernor, type Governor, type GovernorOptions } from "../host.ts";
import { observationDetails } from "../observation.ts";
import type { Preset } from "../plugin.ts";
import type { ToolResultValue } from "../tool-types.ts";
import { mountCommands } from "./commands.ts";
import { sessionStoreFrom, uiBridgeFrom } from "./ui-bridge.ts";

/** Options for {@link createExtension}. */
export interface ExtensionOptions {
  /** Presets a config file may switch to with `"preset": "<name>"`. */
  presets?: readonly Preset[];
  /** Config from code, applied over every file (trusted). */
  overrides?: Record<string, unknown>;
  /** Called with the built governor (tests, embedding). */
  onGovernor?: (governor: Governor) => void;
  /** Replaces how the governor is built (tests inject clocks or layers). */
  governorOptions?: Partial<GovernorOptions>;
}

type PiToolResult = { content: never[]; details: Record<string, unknown> };

/**
 * Returns a pi extension factory for `preset`: pi calls it with its ExtensionAPI, and the pipeline
 * is bound to pi's events (`tool_result`, `context`, `before_agent_start`, `session_start`,
 * `session_shutdown`), the plugins' tools and commands are registered, and `/governor status` is added.
 */
export function createExtension(preset: Preset, options: ExtensionOptions = {}): (pi: ExtensionAPI) => Promise<void> {
  return async (pi: ExtensionAPI) => {
    const cwd = process.cwd();
    const governor = await createGovernor({
      preset,
      presets: options.presets ?? [],
      cwd,
      agentDir: agentDirFrom(process.env),
      env: process.env,
      ...(options.overrides ? { overrides: options.overrides } : {}),
      ...options.governorOptions,
    });
    options.onGovernor?.(governor);
    bindGovernor(pi, governor);
  };
}

/** Binds a built governor to pi. Exposed for embedders that build the governor themselves. */
export function bindGovernor(pi: ExtensionAPI, governor: Governor): void {
  const { pipeline } = governor;
  let sessionId = "";
  let problemsShown = false;

  const attach = (ctx: ExtensionContext) => {
    sessionId = ctx.sessionManager.getSessionId();
    governor.attachSession(sessionId, uiBridgeFrom(ctx), sessionStoreFrom(pi, ctx));
  };

  for (const [name, tool] of pipeline.tools) {
    const def = tool.definition;
    pi.registerTool({
      name,
      label: def.label ?? name,
      description: def.description,
      parameters: def.parameters as never,
      ...(def.promptSnippet ? { promptSnippet: def.promptSnippet } : {}),
      ...(def.promptGuidelines ? { promptGuidelines: def.promptGuidelines } : {}),
      async execute(toolCallId, params, signal, onUpdate, ctx) {
        attach(ctx);
        const obs = await pipeline.callTool(name, (params ?? {}) as Record<string, unknown>, {
          toolCallId,
          sessionId,
          ...(signal ? { signal } : {}),
          ...(onUpdate ? { onUpdate: (p) => onUpdate({ content: p.content as never[], details: p.details ?? {} }) } : {}),
        });
        return { content: obs.content as never[], details: observationDetails(obs) } satisfies PiToolResult;
      },
    });
  }

  mountCommands(pi, governor, (ctx) => {
    attach(ctx);
    return { ui: uiBridgeFrom(ctx), cwd: ctx.cwd, sessionId };
  });

  pi.on("session_start", async (event, ctx) => {
    attach(ctx);
    const problems = governor.problems();
    if (problems.length && !problemsShown) {
      problemsShown = true;
      ctx.ui.notify(`pi-governor: ${problems.length} config problem(s); running on the valid parts. /governor status lists them.\n${problems.slice(0, 5).join("\n")}`, "warning");
    }
    await pipeline.hooks.sessionStart.run({ sessionId, cwd: ctx.cwd, reason: event.reason });
  });

  pi.on("session_shutdown", async (event, ctx) => {
    await pipeline.hooks.sessionShutdown.run({ sessionId: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, reason: event.reason });
  });

  pi.on("tool_result", async (event, ctx) => {
    attach(ctx);
    const governed = pipeline.tools.get(event.toolName);
    const value: ToolResultValue = {
      toolName: event.toolName,
      toolCallId: event.toolCallId,
      input: event.input,
      content: event.content as ToolResultValue["content"],
      details: (event.details ?? undefined) as Record<string, unknown> | undefined,
      isError: event.isError,
    };
    const status = (value.details?.governor as { status?: string } | undefined)?.status;
    if (governed && status && status !== "SUCCESS") value.isError = true;
    const out = await pipeline.hooks.toolResult.run(value, { tool: governed?.info, sessionId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (out.content === event.content && out.details === event.details && out.isError === event.isError) return undefined;
    return { content: out.content as never[], details: out.details, isError: out.isError };
  });

  pi.on("context", async (event, ctx) => {
    // Re-attach here too: after /reload without UI bindings pi emits no session_start, and the
    // context plugins' session records (the pruning boundary, pins) must come from this session.
    attach(ctx);
    const usage = ctx.getContextUsage();
    const messages = await pipeline.hooks.context.run(event.messages as AgentMessageLike[], {
      sessionId: ctx.sessionManager.getSessionId(),
      ...(usage ? { usage } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    return messages === (event.messages as unknown) ? undefined : { messages: messages as never };
  });

  pi.on("before_agent_start", async (event, ctx) => {
    attach(ctx);
    const injections = await pipeline.hooks.beforeAgentStart.run([], { prompt: event.prompt, cwd: ctx.cwd, sessionId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
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

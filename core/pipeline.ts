import { classifyError } from "./classify.ts";
import { isGovernorError, isPluginError, PipelineError, PluginError } from "./errors.ts";
import type { BoundaryDraft, TurnBoundaryInfo } from "./context-edits.ts";
import type { PipelineEvent } from "./events.ts";
import type { CacheWarmingAction, CacheWarmingInfo } from "./prompt-cache.ts";
import { LifecycleHook, ObserverHook, type TapRecord, TransformHook, WrapHook } from "./hooks.ts";
import { failure, type ToolObservation } from "./observation.ts";
import { type Clock, systemClock } from "./services.ts";
import type {
  CommandContext,
  ContextInfo,
  ContextMessages,
  GovernedToolDefinition,
  GovernorCommand,
  Injection,
  PromptInfo,
  SessionInfo,
  ToolCallContext,
  ToolHandler,
  ToolInfo,
  ToolGateDecision,
  ToolGateInfo,
  ToolResultInfo,
  ToolResultValue,
  RunInfo,
  TurnEndInfo,
  TurnInfo,
} from "./tool-types.ts";

/** A tool after seal: its definition, info and the composed handler. */
export interface SealedTool {
  /** As the owner registered it. */
  readonly definition: GovernedToolDefinition;
  /** What wrappers see of the tool. */
  readonly info: ToolInfo;
  /** The toolCall wrappers composed around the tool's execute. */
  readonly handler: ToolHandler;
}

/** Options for calling a tool through the pipeline directly (the pi adapter and tests do). */
export interface CallOptions {
  /** pi's id of the call; empty when absent. */
  toolCallId?: string;
  /** The call that made this one (pi 1.x nested calls). */
  parentToolCallId?: string;
  /** The session the call belongs to. */
  sessionId?: string;
  /** Aborts the call (pi's Esc). */
  signal?: AbortSignal;
  /** Receives partial results while the tool runs. */
  onUpdate?: ToolCallContext["onUpdate"];
}

/**
 * The hook pipeline. Plugins tap `hooks` inside `apply`; the host calls `seal()` once, which composes
 * every tool's wrapper chain and refuses later taps. Per call, only plain function calls run.
 */
export class Pipeline {
  private isSealed = false;
  private readonly toolDefs = new Map<string, { def: GovernedToolDefinition; owner: string }>();
  private readonly sealedTools = new Map<string, SealedTool>();
  private readonly commandDefs = new Map<string, { command: GovernorCommand; owner: string }>();
  private readonly sections: Array<{ owner: string; title: string; lines: () => string[] }> = [];
  private readonly checks: Array<{ owner: string; check: () => readonly string[] }> = [];
  private readonly clock: Clock;

  /** The typed, frozen hook set. */
  readonly hooks: Readonly<{
    /** Onion around every governed tool call. Lower stage = outer. */
    toolCall: WrapHook<ToolHandler, ToolInfo>;
    /**
     * Every call pi is about to run, any tool's (nested calls too): a stage may refuse it (breaker,
     * policies) and end the run.
     */
    toolGate: TransformHook<ToolGateDecision, ToolGateInfo>;
    /** Every finished tool result (governed and pi's built-ins): format, cut to blobs, pin. */
    toolResult: TransformHook<ToolResultValue, ToolResultInfo>;
    /** The message list about to go to the model (request-only): pruning. */
    context: TransformHook<ContextMessages, ContextInfo>;
    /**
     * Session entries to append at the end of a turn (pi's `turn_end` boundary, on pi lines that
     * accept boundary entries: 0.87 and later; never run on older lines): `context_edit` drafts
     * that persist what a context transform does, and records. A tap returns the list it was given
     * plus its own drafts.
     */
    contextEdits: TransformHook<BoundaryDraft[], TurnBoundaryInfo>;
    /** Injections in front of a prompt: autoContext. */
    beforeAgentStart: TransformHook<Injection[], PromptInfo>;
    /**
     * The host is about to refresh the prompt cache between requests (pi's cache warming, 0.87 and
     * later; never run on older lines): the value is the action so far (the host's own decision
     * first), a tap returns the action it wants.
     */
    cacheWarming: TransformHook<CacheWarmingAction, CacheWarmingInfo>;
    sessionStart: LifecycleHook<SessionInfo>;
    sessionShutdown: LifecycleHook<SessionInfo>;
    /**
     * A run (a prompt and the turns it leads to) starts: once per prompt, not again when pi retries a
     * provider error, compacts and retries, or continues with queued messages inside the run.
     */
    runStart: LifecycleHook<RunInfo>;
    /** A turn (one model request and its tool calls) starts. */
    turnStart: LifecycleHook<TurnInfo>;
    /**
     * A turn ended (its tool results are in): per-turn bookkeeping. Observers only: what a tap does
     * here does not change the session.
     */
    turnEnd: LifecycleHook<TurnEndInfo>;
    /** Observers of everything that happens. */
    event: ObserverHook<PipelineEvent>;
  }>;

  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
    const self = this;
    const host = {
      get sealed(): boolean {
        return self.isSealed;
      },
      reportPluginError: (error: PluginError) => self.emit({ type: "plugin_error", error }),
    };
    this.hooks = Object.freeze({
      toolCall: new WrapHook<ToolHandler, ToolInfo>(host, "toolCall", "tie-error"),
      toolGate: new TransformHook<ToolGateDecision, ToolGateInfo>(host, "toolGate", "tie-error"),
      toolResult: new TransformHook<ToolResultValue, ToolResultInfo>(host, "toolResult", "tie-error"),
      context: new TransformHook<ContextMessages, ContextInfo>(host, "context", "tie-error"),
      contextEdits: new TransformHook<BoundaryDraft[], TurnBoundaryInfo>(host, "contextEdits"),
      beforeAgentStart: new TransformHook<Injection[], PromptInfo>(host, "beforeAgentStart"),
      cacheWarming: new TransformHook<CacheWarmingAction, CacheWarmingInfo>(host, "cacheWarming"),
      sessionStart: new LifecycleHook<SessionInfo>(host, "sessionStart"),
      sessionShutdown: new LifecycleHook<SessionInfo>(host, "sessionShutdown"),
      runStart: new LifecycleHook<RunInfo>(host, "runStart"),
      turnStart: new LifecycleHook<TurnInfo>(host, "turnStart"),
      turnEnd: new LifecycleHook<TurnEndInfo>(host, "turnEnd"),
      event: new ObserverHook<PipelineEvent>(host, "event"),
    });
  }

  /** True after seal: no more taps, tools or commands. */
  get sealed(): boolean {
    return this.isSealed;
  }

  /** Adds a tool for the model. `owner` is the registering plugin's name. */
  registerTool(owner: string, definition: GovernedToolDefinition): void {
    this.assertOpen(owner, `registerTool(${definition.name})`);
    if (!/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/.test(definition.name)) {
      throw new PipelineError(
        "GOV_TOOL_NAME",
        `plugin "${owner}": tool name "${definition.name}" must start with a letter and use only letters, digits, _ and - (max 64)`,
      );
    }
    const existing = this.toolDefs.get(definition.name);
    if (existing) {
      throw new PipelineError("GOV_TOOL_DUPLICATE", `plugin "${owner}": tool "${definition.name}" is already registered by "${existing.owner}"`);
    }
    this.toolDefs.set(definition.name, { def: definition, owner });
  }

  /**
   * Adds a slash subcommand. `path` is "root sub" (`"kota pin"` -> `/kota pin`); the pi adapter mounts
   * one pi command per root and dispatches on the first word. Use `services.commandRoot` as root.
   */
  registerCommand(owner: string, path: string, command: GovernorCommand): void {
    this.assertOpen(owner, `registerCommand(${path})`);
    if (!/^[a-z][a-z0-9-]* [a-z][a-z0-9-]*$/.test(path)) {
      throw new PipelineError("GOV_COMMAND_NAME", `plugin "${owner}": command "${path}" must be "root sub" in lower case, e.g. "kota pin"`);
    }
    const name = path;
    const existing = this.commandDefs.get(name);
    if (existing) {
      throw new PipelineError("GOV_COMMAND_DUPLICATE", `plugin "${owner}": command "/${name}" is already registered by "${existing.owner}"`);
    }
    this.commandDefs.set(name, { command, owner });
  }

  /**
   * Adds lines to `/governor status` under `title` (what a plugin runs that the stage list does not
   * show, such as which MCP servers it manages). `lines` is called each time the status is shown.
   */
  registerStatusSection(owner: string, title: string, lines: () => string[]): void {
    this.assertOpen(owner, `registerStatusSection(${title})`);
    this.sections.push({ owner, title, lines });
  }

  /**
   * Adds a check the host runs once, after every plugin is applied and the tools are sealed: each
   * line it returns is a warning at load (shown once per session, in `/governor status` and by the
   * doctor). For what only the whole preset shows, such as a rule that names no tool of any plugin.
   */
  registerLoadCheck(owner: string, check: () => readonly string[]): void {
    this.assertOpen(owner, "registerLoadCheck");
    this.checks.push({ owner, check });
  }

  /** The load checks plugins registered, in registration order. */
  get loadChecks(): ReadonlyArray<{ owner: string; check: () => readonly string[] }> {
    return this.checks;
  }

  /** The status sections plugins registered, in registration order. */
  get statusSections(): ReadonlyArray<{ owner: string; title: string; lines: () => string[] }> {
    return this.sections;
  }

  /** Composes every tool's chain once and freezes the pipeline. Idempotent. */
  seal(): void {
    if (this.isSealed) return;
    this.isSealed = true;
    const report = (error: PluginError) => this.emit({ type: "plugin_error", error });
    for (const [name, { def, owner }] of this.toolDefs) {
      const info: ToolInfo = Object.freeze({
        name,
        description: def.description,
        annotations: Object.freeze({ ...def.annotations }),
        tags: Object.freeze([...(def.tags ?? [])]),
        owner,
        ...(def.mcp ? { mcp: Object.freeze({ server: def.mcp.server, tool: def.mcp.tool }) } : {}),
      });
      const terminal = this.terminal(def);
      const composed =
        def.governed === false
          ? terminal
          : this.hooks.toolCall.compose(terminal, info, nextAtMostOnce, (plugin, handler) => blameThrows(plugin, handler, report));
      this.sealedTools.set(name, { definition: def, info, handler: outermost(name, composed, this.clock) });
    }
  }

  /** Sealed tools by name. Empty before seal. */
  get tools(): ReadonlyMap<string, SealedTool> {
    return this.sealedTools;
  }

  /** Registered commands by "root sub" path. */
  get commands(): ReadonlyMap<string, { command: GovernorCommand; owner: string }> {
    return this.commandDefs;
  }

  /**
   * Runs a registered command. A handler that throws is reported like a failing hook (a
   * `plugin_error` event naming the owning plugin and the command) and rejects with that
   * {@link PluginError}, so the caller can show it.
   */
  async runCommand(path: string, args: string, ctx: CommandContext): Promise<void> {
    const entry = this.commandDefs.get(path);
    if (!entry)
      throw new PipelineError("GOV_UNKNOWN_COMMAND", `no command "/${path}" (known: ${[...this.commandDefs.keys()].map((k) => `/${k}`).join(", ") || "none"})`);
    try {
      await entry.command.handler(args, ctx);
    } catch (error) {
      const failure = new PluginError(entry.owner, `command /${path}`, error);
      this.emit({ type: "plugin_error", error: failure });
      throw failure;
    }
  }

  /** Runs a governed tool through its composed chain. Resolves to an observation; never rejects. */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolObservation> {
    const tool = this.sealedTools.get(name);
    if (!tool) {
      const known = [...this.sealedTools.keys()].join(", ") || "none";
      throw new PipelineError("GOV_UNKNOWN_TOOL", `no governed tool "${name}" (known: ${known})${this.isSealed ? "" : "; the pipeline is not sealed yet"}`);
    }
    // Immutable by type (readonly), not by Object.freeze: freezing costs ~1 us per call in V8.
    const call: ToolCallContext = {
      toolName: name,
      toolCallId: options.toolCallId ?? "",
      ...(options.parentToolCallId ? { parentToolCallId: options.parentToolCallId } : {}),
      args,
      signal: options.signal ?? neverAborts,
      attempt: 1,
      sessionId: options.sessionId ?? "",
      startedAt: this.clock.now(),
      ...(options.onUpdate ? { onUpdate: options.onUpdate } : {}),
    };
    this.emit({ type: "tool_start", toolName: name, toolCallId: call.toolCallId, args: call.args });
    const observation = await tool.handler(call);
    this.emit({ type: "tool_end", toolCallId: call.toolCallId, observation });
    return observation;
  }

  /** Sends an event to observers. */
  emit(event: PipelineEvent): void {
    this.hooks.event.call(event);
  }

  /** Taps per hook in run order, for `/governor status`. */
  describe(): Record<string, TapRecord[]> {
    const out: Record<string, TapRecord[]> = {};
    for (const [name, hook] of Object.entries(this.hooks)) out[name] = hook.taps();
    return out;
  }

  private assertOpen(owner: string, what: string): void {
    if (this.isSealed) throw new PipelineError("GOV_SEALED", `plugin "${owner}" called ${what} after the pipeline was sealed; do it inside apply()`);
  }

  /** The innermost handler: runs the tool, classifies a throw. Durations are set by the outermost layer. */
  private terminal(def: GovernedToolDefinition): ToolHandler {
    return async (call) => {
      try {
        const result = await def.execute(call);
        // An observation built by hand may predate the typed meta record: give it an empty one.
        if ("status" in result) return (result.meta as typeof result.meta | undefined) ? result : { ...result, meta: {} };
        return {
          status: "SUCCESS",
          toolName: def.name,
          durationMs: 0,
          retries: 0,
          content: result.content,
          details: result.details ?? {},
          meta: result.meta ?? {},
        };
      } catch (error) {
        return failure(def.name, classifyError(error, { subject: def.name }));
      }
    };
  }
}

const neverAborts = new AbortController().signal;

/** Rejects a second `next(call)` with the same call object: koa-compose's rule, per call context. */
function nextAtMostOnce(pluginName: string, inner: ToolHandler): ToolHandler {
  const seen = new WeakSet<ToolCallContext>();
  return (call) => {
    if (seen.has(call)) {
      return Promise.reject(
        new PipelineError(
          "GOV_NEXT_TWICE",
          `plugin "${pluginName}" called next() twice with the same call context for ${call.toolName}; pass a new context per attempt: next({ ...call, attempt: call.attempt + 1 })`,
        ),
      );
    }
    seen.add(call);
    return inner(call);
  };
}

/**
 * Names the plugin whose wrapper threw: a plain error from a wrapper's handler becomes a
 * {@link PluginError} (classified by its cause later, so a network error stays `network`). Governed
 * errors, pipeline misuse errors and errors already attributed to an inner plugin pass unchanged.
 * A throw that classifies as nothing known (a bug, not a transient condition) is also reported as a
 * `plugin_error`, like a failing hook, so `/governor status` lists it.
 */
function blameThrows(pluginName: string, handler: ToolHandler, report: (error: PluginError) => void): ToolHandler {
  const attribute = (error: unknown): unknown => {
    if (isGovernorError(error) || isPluginError(error) || error instanceof PipelineError) return error;
    const failure = new PluginError(pluginName, "toolCall", error);
    if (classifyError(error).category === "unknown") report(failure);
    return failure;
  };
  const rethrow = (error: unknown): never => {
    throw attribute(error);
  };
  return (call) => {
    try {
      const pending = handler(call);
      // A handler that returns a plain observation (not a promise) is tolerated, as await would.
      return typeof (pending as { then?: unknown } | undefined)?.then === "function" ? pending.then(undefined, rethrow) : Promise.resolve(pending);
    } catch (error) {
      return Promise.reject(attribute(error));
    }
  };
}

/**
 * The outermost guard: whatever a wrapper throws ends as an ERROR observation, and every observation
 * gets the call's total duration (retries included) measured once, here.
 */
function outermost(name: string, handler: ToolHandler, clock: Clock): ToolHandler {
  return async (call) => {
    let obs: ToolObservation;
    try {
      obs = await handler(call);
    } catch (error) {
      obs = failure(name, classifyError(error, { subject: name }));
    }
    obs.durationMs = clock.now() - call.startedAt;
    return obs;
  };
}

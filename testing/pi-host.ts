/**
 * A fake pi host for a plugin's unit tests: the plugins run in a governor bound to a stand-in for
 * pi's extension API (the real adapter, `bindGovernor`), and the test drives pi's events the way pi
 * emits them (docs/extensions.md of pi): a tool call as `tool_execution_start`, `tool_call`, the
 * tool's `execute`, `tool_result` and `tool_execution_end`; a model request as `context`; a turn as
 * `turn_start` and `turn_end`. Time is a {@link ManualClock}. What pi itself does with the answers is
 * proven against the real pi in this repository's e2e tests, not here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentMessageLike, type ContentBlock, definePreset, type Governor, type GovernorPlugin } from "../core/index.ts";
import { bindGovernor, createGovernor, type PiExtensionApi } from "../host/index.ts";
import { ManualClock } from "./manual-clock.ts";

/** How to build a {@link FakePiHost}. */
export interface FakePiHostOptions {
  /** The plugins under test, applied in this order (services still order providers first). */
  plugins: readonly GovernorPlugin<any>[];
  /** Config per plugin section, applied as trusted code overrides: `{ retry: { maxAttempts: 2 } }`. Default none. */
  overrides?: Record<string, unknown>;
  /** The clock the plugins see. Default a new {@link ManualClock} at 1,000 ms. */
  clock?: ManualClock;
  /** The session's project folder (`ctx.cwd`). Default a new empty temporary folder, removed by `shutdown()`. */
  cwd?: string;
  /** pi's agent folder (execution log, caches). Default a new empty temporary folder, removed by `shutdown()`. */
  agentDir?: string;
  /** The model pi reports on `context` (`ctx.model`). Default none. */
  model?: { provider: string; id: string };
  /**
   * The person at pi's UI: their answer to each dialog. Default a UI whose person declines every
   * confirmation and picks nothing; `false` is a session without a UI (print mode: dialogs resolve
   * false or undefined, warnings go to stderr).
   */
  ui?: false | FakePerson;
}

/** How the person at the fake UI answers a dialog (each answer may be a promise). */
export interface FakePerson {
  confirm?(title: string, message: string): boolean | Promise<boolean>;
  select?(title: string, options: string[]): string | undefined | Promise<string | undefined>;
  editor?(title: string, text: string | undefined): string | undefined | Promise<string | undefined>;
}

/** A tool's result as the model would get it, after every `tool_result` handler. */
export interface FakeToolResult {
  content: ContentBlock[];
  details?: Record<string, unknown>;
  isError: boolean;
  /** The reason a `tool_call` handler gave for refusing the call; the tool did not run. */
  blocked?: string;
  /** Whether the refusal asks pi to end the run after this batch. */
  terminate?: boolean;
}

/** What pi's own tool (not one of the plugins') produced, for {@link FakePiHost.callTool} to pass through `tool_result`. */
export interface HostToolOutput {
  content: ContentBlock[];
  details?: Record<string, unknown>;
  isError?: boolean;
}

type Handler = (event: Record<string, unknown>, ctx: unknown) => unknown;
interface RegisteredTool {
  execute(
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: undefined,
    ctx: unknown,
  ): Promise<{ content: ContentBlock[]; details?: unknown }>;
}

/** The fake host: the governor, its clock, and one method per pi event a plugin reacts to. */
export interface FakePiHost {
  /** The governor the plugins run in (`governor.problems()` lists config and wiring problems). */
  readonly governor: Governor;
  /** The clock the plugins see; `await clock.advance(ms)` moves time and fires due timers. */
  readonly clock: ManualClock;
  /** The session's project folder. */
  readonly cwd: string;
  /** Every message shown with `ctx.ui.notify`, in order (none when `ui: false`). */
  readonly notifications: string[];
  /** The title of every dialog shown (confirm, select, editor), in order. */
  readonly dialogs: string[];
  /** Starts the session (`session_start`). */
  start(): Promise<void>;
  /** A prompt's run begins: `before_agent_start` then `agent_start`; returns the text injected before the prompt, if any. */
  prompt(text: string): Promise<string | undefined>;
  /** A turn begins (`turn_start`). */
  turnStart(turnIndex: number): Promise<void>;
  /** A turn ends (`turn_end`) after `toolResults` tool results. */
  turnEnd(turnIndex: number, toolResults?: number): Promise<void>;
  /**
   * The model calls `toolName` with `args`: a plugin's tool runs through the governed pipeline; pi's
   * own tool (`read`, `bash`, ...) returns `output` (default an empty text). Resolves to the result
   * the model gets.
   */
  callTool(toolName: string, args?: Record<string, unknown>, output?: HostToolOutput): Promise<FakeToolResult>;
  /** A model request: the `context` handlers get `messages` and the list they return is what the model would see. */
  context(messages: AgentMessageLike[]): Promise<AgentMessageLike[]>;
  /** Ends the session (`session_shutdown`): plugins flush and close what they opened; the folders the kit made are removed. */
  shutdown(): Promise<void>;
}

/** Builds a governor of `options.plugins` and binds it to a fake pi; call `start()` before the first event. */
export async function fakePiHost(options: FakePiHostOptions): Promise<FakePiHost> {
  const clock = options.clock ?? new ManualClock();
  // Folders the kit makes are its own: shutdown() removes them, never a folder the test passed.
  const made: string[] = [];
  const folder = (given: string | undefined, prefix: string) => given ?? (made.push(mkdtempSync(join(tmpdir(), prefix))), made.at(-1)!);
  const cwd = folder(options.cwd, "pi-governor-test-cwd-");
  const agentDir = folder(options.agentDir, "pi-governor-test-agent-");
  const preset = definePreset({ name: "test", description: "the plugins under test", plugins: () => [...options.plugins] });
  const governor = await createGovernor({ preset, cwd, agentDir, env: {}, clock, layers: [], ...(options.overrides ? { overrides: options.overrides } : {}) });

  const handlers = new Map<string, Handler[]>();
  const tools = new Map<string, RegisteredTool & { name: string }>();
  let active: string[] = [];
  const pi: PiExtensionApi = {
    on: (name: string, handler: Handler) => void (handlers.get(name) ?? handlers.set(name, []).get(name)!).push(handler),
    registerTool: (tool: RegisteredTool & { name: string }) => void (tools.set(tool.name, tool), active.push(tool.name)),
    registerCommand: () => {},
    appendEntry: () => {},
    getActiveTools: () => [...active],
    setActiveTools: (names: string[]) => void (active = [...names]),
    getAllTools: () => [...tools.keys()].map((name) => ({ name, description: "" })),
  } as PiExtensionApi;
  bindGovernor(pi, governor, { cwd });

  const notifications: string[] = [];
  const dialogs: string[] = [];
  const person = options.ui === false ? undefined : (options.ui ?? {});
  const ctx = {
    cwd,
    hasUI: person !== undefined,
    ui: {
      notify: (message: string) => void notifications.push(message),
      setStatus: () => {},
      confirm: async (title: string, message: string) => (dialogs.push(title), (await person?.confirm?.(title, message)) ?? false),
      select: async (title: string, choices: string[]) => (dialogs.push(title), await person?.select?.(title, choices)),
      editor: async (title: string, text?: string) => (dialogs.push(title), await person?.editor?.(title, text)),
    },
    sessionManager: { getSessionId: () => "fake-session", getEntries: () => [], getBranch: () => [] },
    model: options.model,
    getContextUsage: () => undefined,
    isIdle: () => true,
    abort: () => {},
  };
  /** Runs every handler of `name` in registration order; each answer is returned in order. */
  const emit = async (name: string, event: Record<string, unknown>): Promise<unknown[]> => {
    const answers: unknown[] = [];
    for (const handler of handlers.get(name) ?? []) answers.push(await handler({ type: name, ...event }, ctx));
    return answers;
  };

  let nextCall = 1;
  return {
    governor,
    clock,
    cwd,
    notifications,
    dialogs,
    start: async () => void (await emit("session_start", { reason: "startup" })),
    prompt: async (text) => {
      const injected = (await emit("before_agent_start", { prompt: text })).find((a) => a !== undefined) as { message?: { content?: string } } | undefined;
      await emit("agent_start", {});
      return injected?.message?.content;
    },
    turnStart: async (turnIndex) => void (await emit("turn_start", { turnIndex, timestamp: clock.now() })),
    turnEnd: async (turnIndex, toolResults = 0) =>
      void (await emit("turn_end", { turnIndex, message: { role: "assistant", content: [] }, toolResults: Array.from({ length: toolResults }, () => ({})) })),
    callTool: async (toolName, args = {}, output) => {
      const toolCallId = `call-${nextCall++}`;
      const started = clock.now();
      await emit("tool_execution_start", { toolCallId, toolName, args });
      const block = (await emit("tool_call", { toolCallId, toolName, input: args })).find((a) => (a as { block?: boolean } | undefined)?.block) as
        | { reason?: string; terminate?: boolean }
        | undefined;
      if (block) {
        const reason = block.reason ?? "blocked";
        const blocked = { content: [{ type: "text" as const, text: reason }], isError: true, blocked: reason, ...(block.terminate ? { terminate: true } : {}) };
        await emit("tool_execution_end", { toolCallId, toolName, result: { content: blocked.content }, isError: true });
        return blocked;
      }
      let result: FakeToolResult;
      const tool = tools.get(toolName);
      if (tool) {
        try {
          const r = await tool.execute(toolCallId, args, undefined, undefined, ctx);
          result = { content: r.content, ...(r.details ? { details: r.details as Record<string, unknown> } : {}), isError: false };
        } catch (error) {
          result = { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
        }
      } else {
        result = {
          content: output?.content ?? [{ type: "text", text: "" }],
          ...(output?.details ? { details: output.details } : {}),
          isError: output?.isError ?? false,
        };
      }
      // tool_result handlers chain: each sees the result as the ones before it left it.
      for (const handler of handlers.get("tool_result") ?? []) {
        const patch = (await handler({ type: "tool_result", toolCallId, toolName, input: args, ...result }, ctx)) as Partial<FakeToolResult> | undefined;
        if (patch) result = { ...result, ...patch };
      }
      await emit("tool_execution_end", {
        toolCallId,
        toolName,
        result: { content: result.content, details: result.details },
        isError: result.isError,
        durationMs: clock.now() - started,
      });
      return result;
    },
    context: async (messages) => {
      let current = messages;
      for (const handler of handlers.get("context") ?? []) {
        const answer = (await handler({ type: "context", messages: current }, ctx)) as { messages?: AgentMessageLike[] } | undefined;
        if (answer?.messages) current = answer.messages;
      }
      return current;
    },
    shutdown: async () => {
      await emit("session_shutdown", { reason: "quit" });
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * pi's extension API, its contexts and the events the adapter binds, as the adapter reads them:
 * structural slices written once, here. pi ships under two npm scopes and its declarations differ
 * between lines (0.73 to 1.x), so no file of the adapter names pi's own types; every field below is
 * one the lines send, and one a line lacks is optional. {@link PiExtensionApi}, the public type,
 * names no pi; {@link piApiOf} is the one place the object pi hands over is read as {@link PiApi}.
 */
import type { AgentMessageLike, ContentBlock } from "../../core/content.ts";
import type { CacheWarmingAction } from "../../core/prompt-cache.ts";
import type { ContextInfo } from "../../core/tool-types.ts";
import type { PiExtensionApi } from "./extension-api.ts";
import type { ExecutionEvent } from "./host-calls.ts";
import type { PiToolResultFields, PiToolResultPatch } from "./result-patch.ts";

/** `ctx.ui`: the methods the UI bridge calls. */
export interface PiUi {
  notify(message: string, level?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  confirm(title: string, message: string): Promise<boolean>;
  select(title: string, options: string[]): Promise<string | undefined>;
  editor(title: string, text?: string): Promise<string | undefined>;
}

/** `ctx.sessionManager`: the session's id and entries (pi 0.87+ also `getBranch`, read in session-entries.ts). */
export interface PiSessionManager {
  getSessionId(): string;
  /** Every entry of the session file, oldest first; custom ones (`appendEntry`) carry `customType` and `data`. */
  getEntries(): ReadonlyArray<{ type: string; customType?: string; data?: unknown }>;
}

/** What pi hands every event handler, a tool's execute and a command (`ExtensionContext`). */
export interface PiContext {
  readonly cwd: string;
  readonly hasUI: boolean;
  readonly ui: PiUi;
  readonly sessionManager: PiSessionManager;
  /** The run's abort signal; undefined while the agent is not streaming. */
  readonly signal?: AbortSignal | undefined;
  /** The model the session uses, when pi has one (pi 1.x: with the `promptCache` lifetimes it declares). */
  readonly model?: { readonly provider: unknown; readonly id: string } | undefined;
  /** pi's estimate of the context in use, when known. */
  getContextUsage(): ContextInfo["usage"] | undefined;
  /** Aborts the current run. */
  abort(): void;
  /** Whether the agent is idle (not streaming). */
  isIdle(): boolean;
  /** Whether a message the user sent (steer, follow-up) waits to be delivered into the run (pi 0.73+; absent on some lines). */
  hasPendingMessages?(): boolean;
}

/** `session_start` / `session_shutdown`: why (`startup`, `new`, `resume`, `fork`, `reload`, `quit`, ...). */
export interface PiSessionEvent {
  readonly reason: string;
}

/** `turn_start`. */
export interface PiTurnStartEvent {
  readonly turnIndex: number;
}

/**
 * `turn_end`: the turn's tool results; on pi 0.87+ also the boundary's entries proposed so far, the
 * session context they apply to and how the turn ended (where `contextEdits` drafts are appended).
 */
export interface PiTurnEndEvent {
  readonly turnIndex: number;
  readonly toolResults?: unknown;
  readonly entries?: unknown;
  readonly context?: { readonly contextEntries?: unknown };
  readonly outcome?: unknown;
}

/** `before_agent_start`: the prompt, when a user prompt (not a custom message) starts the run. */
export interface PiBeforeAgentStartEvent {
  readonly type?: string;
  readonly prompt?: unknown;
}

/** `user_bash`: a shell command the user runs (`!`, `!!`, RPC `bash`). */
export interface PiUserBashEvent {
  readonly command?: unknown;
}

/** `tool_call`: a call pi is about to run (pi 1.x: `parentToolCallId` on a nested call). */
export interface PiToolCallEvent {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly input?: unknown;
  readonly parentToolCallId?: unknown;
}

/** `tool_result`: a finished call's result, before pi persists it. */
export interface PiToolResultEvent extends PiToolResultFields {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly input: Record<string, unknown>;
}

/** `context`: the messages about to go to the model (pi's `AgentMessage`s, read by role and content). */
export interface PiContextEvent {
  readonly messages: AgentMessageLike[];
}

/** `cache_warming_decision` (pi 0.87+): pi's estimates and the action it chose. */
export interface PiCacheWarmingEvent {
  readonly action?: unknown;
  readonly warmCost?: unknown;
  readonly missCost?: unknown;
  readonly continuationProbability?: unknown;
}

/** A `tool_call` answer that blocks the call (`terminate`: pi 0.84.1+ ends the run after the batch). */
export interface PiBlock {
  block: true;
  reason: string;
  terminate?: true;
}

/** A `before_agent_start` answer: one custom message in front of the prompt. */
export interface PiInjectedMessage {
  message: { customType: string; content: string; display: boolean; details: Record<string, unknown> };
}

/** `message_start`: the message pi starts to add to the conversation. */
export interface PiMessageStartEvent {
  readonly message?: { readonly role?: unknown };
}

/** Each event the adapter binds: what its handler gets and what it may answer (undefined: nothing). */
export interface PiEvents {
  session_start: [PiSessionEvent, undefined];
  session_shutdown: [PiSessionEvent, undefined];
  agent_start: [unknown, undefined];
  /** pi 0.87+. */
  agent_settled: [unknown, undefined];
  turn_start: [PiTurnStartEvent, undefined];
  turn_end: [PiTurnEndEvent, { entries: unknown[] } | undefined];
  before_agent_start: [PiBeforeAgentStartEvent, PiInjectedMessage | undefined];
  user_bash: [PiUserBashEvent, undefined];
  /** pi 1.x: a message from the user arrived (a prompt, a steer or follow-up inside a run). */
  input: [unknown, undefined];
  message_start: [PiMessageStartEvent, undefined];
  tool_call: [PiToolCallEvent, PiBlock | undefined];
  tool_execution_start: [ExecutionEvent, undefined];
  tool_execution_end: [ExecutionEvent, undefined];
  tool_result: [PiToolResultEvent, PiToolResultPatch | undefined];
  context: [PiContextEvent, { messages: AgentMessageLike[] } | undefined];
  /** pi 0.87+. */
  cache_warming_decision: [PiCacheWarmingEvent, { action: CacheWarmingAction } | undefined];
}

/** A handler of event `E`: its answer, or nothing (a handler that returns nothing leaves pi's course as it is). */
export type PiHandler<E extends keyof PiEvents> = (
  event: PiEvents[E][0],
  ctx: PiContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler with no return statement resolves to void, and that means "no answer".
) => Promise<PiEvents[E][1] | undefined | void> | PiEvents[E][1] | undefined | void;

/** What a tool's execute resolves to (pi's `AgentToolResult`). */
export interface PiToolOutput {
  content: ContentBlock[];
  details: Record<string, unknown>;
}

/** A tool as the adapter registers it (`ToolDefinition`; `parameters` is a TypeBox schema). */
export interface PiTool {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  promptSnippet?: string;
  promptGuidelines?: string[];
  execute(
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: PiToolOutput) => void) | undefined,
    ctx: PiContext,
  ): Promise<PiToolOutput>;
}

/** A slash command as the adapter registers it. */
export interface PiCommand {
  description: string;
  getArgumentCompletions(prefix: string): Array<{ value: string; label: string }> | null;
  handler(args: string, ctx: PiContext): Promise<void>;
}

/** A tool as `getAllTools()` lists it (pi 1.x adds `annotations` and `namespace` for its MCP tools). */
export interface PiToolInfo {
  readonly name: string;
  readonly annotations?: unknown;
  readonly namespace?: unknown;
}

/** pi's extension API as the adapter uses it. */
export interface PiApi {
  on<E extends keyof PiEvents>(event: E, handler: PiHandler<E>): void;
  registerTool(tool: PiTool): void;
  registerCommand(name: string, command: PiCommand): void;
  appendEntry(customType: string, data: Record<string, unknown>): void;
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
  getAllTools(): readonly PiToolInfo[];
}

/**
 * The API pi handed the extension, read through the shapes above: the one cast of the adapter
 * (every pi line's `ExtensionAPI` has these members; a test checks them against the current pi's
 * declarations).
 */
export function piApiOf(api: PiExtensionApi): PiApi {
  return api as unknown as PiApi;
}

import type { SessionMessageEntry, SessionRecord } from "./context-edits.ts";
import type { TSchema } from "typebox";
import type { AgentMessageLike, ContentBlock } from "./content.ts";
import type { ToolObservation } from "./observation.ts";
import type { PromptCacheInfo } from "./prompt-cache.ts";
import type { ResultMeta } from "./result-meta.ts";
import type { UiBridge } from "./services.ts";

/** The MCP server tool a call reaches: the server's name as configured, and the tool's name. */
export interface McpToolIdentity {
  /** The server's name as configured. */
  readonly server: string;
  /** The tool's name as the server lists it. */
  readonly tool: string;
  /**
   * pi cut the tool's name and added a hash (`piHashedIdentity` in lib/mcp-identity): `tool` is only
   * the start of the name as pi writes it (every character other than letters, digits and `_` as
   * `_`; empty when pi cut inside the server's name, `piServerCutIdentity`), and `hash` the 8 hex
   * digits that tell the whole name.
   */
  readonly truncated?: boolean;
  /** pi's hash suffix of this tool (8 hex digits of SHA-256 of `<server>\0<tool>`), when its name carries one. */
  readonly hash?: string;
}

/**
 * What an MCP call reaches. `targets` is one identity for a server's tool (two for a pi tool name
 * that may carry a hash suffix: as written, and as pi's hashed name; the call is judged under both);
 * for a resource tool without a server, one per server known to be reachable (`everyServer`: pi
 * lists or reads them all).
 */
export interface McpReach {
  /** The server tools the call may reach. */
  readonly targets: readonly McpToolIdentity[];
  /** True for a resource tool without a server: every server pi reports. */
  readonly everyServer: boolean;
  /** With `everyServer`: pi may reach servers not among `targets` that pi cannot list. */
  readonly incomplete?: boolean;
  /**
   * pi cut the tool's name inside a server's name and no namespace said which server
   * (`piCutMcpName` in lib/mcp-identity): `targets` are the servers pi reports whose name fits, and
   * any other server that fits (pi's mcp.json files) may be the one too.
   */
  readonly serverCut?: boolean;
}

/** MCP-style behaviour hints: what may be repeated safely. */
export interface ToolAnnotations {
  /** The tool changes nothing. Safe to retry and to replay after a reconnect. */
  readOnlyHint?: boolean;
  /** Calling twice with the same arguments has the effect of calling once. */
  idempotentHint?: boolean;
  /** The tool may destroy or overwrite data (MCP default when not said: true for tools that are not read-only). */
  destructiveHint?: boolean;
  /** The tool reaches outside the machine or the project (MCP default when not said: true). */
  openWorldHint?: boolean;
}

/** What wrappers know about a tool when they are composed around it. */
export interface ToolInfo {
  /** The tool's name, as the model calls it. */
  readonly name: string;
  /** What the model is told the tool does. */
  readonly description: string;
  /** Behaviour hints (the empty object when the definition has none). */
  readonly annotations: Readonly<ToolAnnotations>;
  /**
   * Free-form labels plugins match on; the shared ones are constants in lib/tags/index.ts:
   * `rehydration` (never re-blobbed), `status`, `mcp`, `mcp:<server>`, `server:<name>`, `kota`.
   */
  readonly tags: readonly string[];
  /** The plugin that registered the tool. */
  readonly owner: string;
  /** The MCP server tool it serves, for a managed server's tool (rules match it under pi's spelling too). */
  readonly mcp?: McpToolIdentity;
}

/**
 * One attempt of one governed call: what a tool's `execute(call)` and every `toolCall` wrapper
 * receive. Immutable: a wrapper that needs different values (another attempt, a shorter deadline,
 * cheaper arguments) passes a new object to `next`, e.g. `next({ ...call, attempt: call.attempt + 1 })`.
 */
export interface ToolCallContext {
  /** The governed tool's name, as the model calls it. */
  readonly toolName: string;
  /** pi's tool call id ("" for calls made outside pi). */
  readonly toolCallId: string;
  /** pi's id of the call that made this one (a codemode script), when another tool made it. */
  readonly parentToolCallId?: string;
  /**
   * The model's arguments. pi validated them against the tool's `parameters` before the call;
   * `pipeline.callTool` (tests, scripts) passes them as given. A budget stage may hand a later
   * attempt cheaper ones.
   */
  readonly args: Readonly<Record<string, unknown>>;
  /** Aborts when pi aborts (Esc) or a timeout expires. Always present. */
  readonly signal: AbortSignal;
  /** 1-based attempt number. */
  readonly attempt: number;
  /** pi's session id ("" for calls made outside a session). */
  readonly sessionId: string;
  /** Clock time the call entered the pipeline, in milliseconds. */
  readonly startedAt: number;
  /**
   * Clock time (same clock as `startedAt`, milliseconds) by which the whole call, retries and backoff
   * included, must end. Set by the timeout plugin's total deadline; retry never sleeps past it and
   * each attempt's limit is cut to it. Undefined: no total deadline.
   */
  readonly deadline?: number;
  /** Streams partial output to pi's UI, when pi gave a callback. */
  readonly onUpdate?: (partial: { content: ContentBlock[]; details?: Record<string, unknown> }) => void;
}

/** A composed layer of the onion. Resolves to an observation; never rejects by design. */
export type ToolHandler = (call: ToolCallContext) => Promise<ToolObservation>;

/** A tool-call wrapper: receives the inner handler, returns the handler for this layer. */
export type ToolWrapper = (next: ToolHandler, tool: ToolInfo) => ToolHandler;

/**
 * What a tool's own execute returns: a plain result (its own `details`, and `meta` when it has
 * something to tell the stages, e.g. the blob a page was read from), or a full observation when it
 * knows better.
 */
export type ToolExecuteResult = { content: ContentBlock[]; details?: Record<string, unknown>; meta?: ResultMeta } | ToolObservation;

/** A tool a plugin contributes. pi sees it as a normal tool; every call runs through the wrap hook. */
export interface GovernedToolDefinition {
  /** What the model calls it: letters, digits, `_` and `-`, at most 64, starting with a letter. */
  name: string;
  /** Human label for the UI. Default: the name. */
  label?: string;
  /** What the model is told the tool does. */
  description: string;
  /** TypeBox object schema of the arguments, as pi expects (`Type.Object({...})` from `typebox`). */
  parameters: TSchema;
  /** Behaviour hints: what may be repeated safely. */
  annotations?: ToolAnnotations;
  /** Labels plugins match on (see {@link ToolInfo.tags}). */
  tags?: string[];
  /**
   * The MCP server tool this tool serves (`{ server, tool }` as the server names them), for tools of
   * a managed server: rules written for pi's `mcp__<server>__<tool>` match it too.
   */
  mcp?: McpToolIdentity;
  /** One line for pi's "Available tools" prompt section. */
  promptSnippet?: string;
  /** Bullets pi appends to its system prompt's rules while the tool is active. */
  promptGuidelines?: string[];
  /**
   * false: the tool bypasses the wrap hook (status tools that must answer even when breakers are
   * open). Default true. Rehydration tools (`blob_read`) are governed: the breaker and budget skip
   * them by their `rehydration` tag, while the timeout, abort and execution log still apply.
   */
  governed?: boolean;
  /**
   * The transport: do the work with `call.args`, stop when `call.signal` aborts. Resolves to
   * `{ content, details?, meta? }` or a full observation. Throwing is fine; the pipeline classifies
   * it into an ERROR observation. Runs once per attempt (retry calls it again with a new `call`).
   */
  execute(call: ToolCallContext): Promise<ToolExecuteResult>;
}

/**
 * The value the `toolResult` waterfall passes along: one finished tool result, any tool's.
 * `details` is pi's JSON as pi persists it; read and write the stages' part of it with the typed
 * accessors {@link resultMeta} and {@link withResultMeta}, never by its keys.
 */
export interface ToolResultValue {
  /** The tool's name as pi knows it. */
  readonly toolName: string;
  /** pi's id of the call. */
  readonly toolCallId: string;
  /** The call's arguments, as the model gave them. */
  readonly input: Readonly<Record<string, unknown>>;
  /** What the model will see. */
  content: ContentBlock[];
  /** pi's JSON details of the result, as pi persists them. */
  details: Record<string, unknown> | undefined;
  /** The result reports a failure. */
  isError: boolean;
}

/** Side information for `toolResult`. */
export interface ToolResultInfo {
  /** The governed tool's info, or undefined for pi's built-in and other extensions' tools. */
  readonly tool: ToolInfo | undefined;
  /** pi's id of the session. */
  readonly sessionId: string;
  /** Aborts when pi abandons the request (Esc, shutdown). */
  readonly signal?: AbortSignal;
}

/** Side information for the `context` waterfall. */
export interface ContextInfo {
  /** pi's id of the session. */
  readonly sessionId: string;
  /** pi's estimate of the context in use before this transform, when known. */
  readonly usage?: { tokens: number | null; contextWindow: number; percent: number | null };
  /**
   * The model this context is about to be sent to (pi's `ctx.model`), when pi has one: `provider`
   * as pi names it (e.g. `anthropic`) and the model `id` (e.g. `claude-sonnet-4-5`).
   */
  readonly model?: { provider: string; id: string };
  /** Aborts when pi abandons the request (Esc, shutdown). */
  readonly signal?: AbortSignal;
  /**
   * pi lines with context edits (0.87 and later): the session's message entries on the active
   * branch with their latest edit, read on demand (O(entries)); absent on older lines. The messages
   * of this event carry the edits already (pi builds the context from its projection).
   */
  readonly sessionEntries?: () => readonly SessionMessageEntry[];
  /** The provider's prompt cache for this request, as the host knows it (pi 0.87+ declare lifetimes and warm). */
  readonly promptCache?: PromptCacheInfo;
  /** Same lines: the session's `custom` records of a kind with the context edits right before each (O(entries)). */
  readonly sessionRecords?: (kind: string) => readonly SessionRecord[];
}

/** The value of the `context` waterfall. */
export type ContextMessages = AgentMessageLike[];

/** One piece of text a plugin wants in front of the agent for this prompt. */
export interface Injection {
  /** The plugin that produced it. */
  source: string;
  /** The text put in front of the prompt. */
  text: string;
}

/** Side information for `beforeAgentStart`. */
export interface PromptInfo {
  /** The user's prompt. */
  readonly prompt: string;
  /** The session's working directory (not always the process's). */
  readonly cwd: string;
  /** pi's id of the session. */
  readonly sessionId: string;
  /** Aborts when pi abandons the request (Esc, shutdown). */
  readonly signal?: AbortSignal;
}

/** Why the session started or ended (pi's reasons). */
export interface SessionInfo {
  /** pi's id of the session. */
  readonly sessionId: string;
  /** The session's working directory (not always the process's). */
  readonly cwd: string;
  /** pi's reason for the start or the end, as its event gives it. */
  readonly reason: string;
}

/**
 * One call pi is about to run, any tool's (pi's built-ins, pi's own MCP tools, other extensions' and
 * the governed ones, nested codemode calls included), before it runs: the `toolGate` hook's side
 * information.
 */
export interface ToolGateInfo {
  /** The tool's name as pi knows it. */
  readonly toolName: string;
  /** pi's id of the call. */
  readonly toolCallId: string;
  /** The call that made this one (a codemode script's call), when another tool made it (pi 1.x). */
  readonly parentToolCallId?: string;
  /** The arguments as the model (or a codemode script) gave them. Read them; never change them here. */
  readonly input: Readonly<Record<string, unknown>>;
  /** True for pi-governor's own tools (their calls are governed by the wrap hook as well). */
  readonly governed: boolean;
  /** Behaviour hints: the governed tool's own, or those pi reports for its tools (MCP annotations, pi 1.x). */
  readonly annotations: Readonly<ToolAnnotations>;
  /** The governed tool's info; undefined for pi's and other extensions' tools. */
  readonly tool: ToolInfo | undefined;
  /**
   * The MCP server tools the call reaches, whichever side runs the server (lib/mcp-identity/tool-identity.ts):
   * a managed server's tool, pi's `mcp__<server>__<tool>`, or pi's resource tool naming a server in
   * its arguments (without one: every server pi reports). Undefined for every other call.
   */
  readonly mcp?: McpReach;
  /** pi's id of the session. */
  readonly sessionId: string;
  /** The session's UI: `hasUI` false in print mode, where nothing can be asked. */
  readonly ui: UiBridge;
  /** Aborts when pi abandons the request (Esc, shutdown). */
  readonly signal?: AbortSignal;
}

/**
 * The value of the `toolGate` waterfall: whether a call pi is about to run may run. A stage that
 * refuses it returns `{ blockReason }`; pi then answers the call with that text instead of running
 * it. `terminate` also ends the run after this batch of calls. A stage that gets a refused call
 * passes the decision on.
 */
export interface ToolGateDecision {
  /** Why the call is refused; shown as the call's result. Undefined: the call runs. */
  blockReason?: string;
  /** End the run (pi 0.84.1+: after this batch; older pi: before the next model request). */
  terminate?: boolean;
  /**
   * A person approved the call with these arguments (their JSON, as shown): the host runs the call
   * with exactly them or not at all. The pi adapter freezes pi's arguments object, so no later
   * `tool_call` handler or tool can change it, and refuses the call if it no longer matches.
   */
  approvedArgs?: string;
}

/** A turn (one model request and the tool calls it makes) is starting. */
export interface TurnInfo {
  /** pi's id of the session. */
  readonly sessionId: string;
  /** pi's index of the turn within the current run (0-based). */
  readonly turnIndex: number;
}

/**
 * A turn has ended: the model answered and the tool calls it asked for have finished (pi's
 * `turn_end`, after their results are in the session).
 */
export interface TurnEndInfo {
  /** pi's id of the session. */
  readonly sessionId: string;
  /** pi's index of the turn within the current run (0-based); the same as the turn's {@link TurnInfo}. */
  readonly turnIndex: number;
  /** How many tool results the turn produced (0 when the model answered without a tool call). */
  readonly toolResults: number;
}

/** A run (a prompt and every turn it leads to) is starting. */
export interface RunInfo {
  /** pi's id of the session. */
  readonly sessionId: string;
}

/** A slash command a plugin contributes. */
export interface GovernorCommand {
  /** One line for pi's command list. */
  description: string;
  /** `args` is the text after the command name. */
  handler(args: string, ctx: CommandContext): void | Promise<void>;
  /** Completions for the argument text typed so far. */
  completions?: (prefix: string) => string[];
}

/** What a command handler gets. */
export interface CommandContext {
  /** The session's UI (`hasUI` false in print mode). */
  readonly ui: UiBridge;
  /** The session's working directory (not always the process's). */
  readonly cwd: string;
  /** pi's id of the session. */
  readonly sessionId: string;
}

import type { PluginError } from "./errors.ts";
import type { ToolObservation } from "./observation.ts";
import type { LogRecord } from "./services.ts";
import type { ContentBlock } from "./content.ts";

/**
 * One call pi ran to its end, whatever tool it was: pi's built-ins, pi's own MCP tools
 * (`mcp__<server>__<tool>`), other extensions' tools, and the calls a tool such as `codemode` made
 * (`parentToolCallId`). Governed tools are reported too (`governed: true`); their own row comes from
 * the wrap hook.
 */
export interface HostToolCall {
  readonly toolName: string;
  readonly toolCallId: string;
  /** The call that made this one (a codemode script's call), when another tool made it. */
  readonly parentToolCallId?: string;
  readonly sessionId: string;
  /** Wall-clock epoch milliseconds when pi started the call. */
  readonly startedAtMs: number;
  /** Milliseconds the call took (pi's measure where it gives one), whole. */
  readonly durationMs: number;
  readonly isError: boolean;
  /**
   * `ok`; `error_result`: the tool answered with an error result that carries its structured answer
   * (an MCP server's `isError` result, so the server is up); `error`: it failed without an answer
   * (transport failure, throw, timeout, unknown tool); `blocked`: a `toolGate` stage refused it.
   */
  readonly outcome: "ok" | "error_result" | "error" | "blocked";
  /** Why the call did not run, when a `toolGate` stage blocked it. */
  readonly blockedBy?: string;
  readonly governed: boolean;
  /**
   * False when pi has no tool of this name: the model invented it, and `toolName` is the model's text
   * (any length, any content). Absent where the host cannot tell.
   */
  readonly known?: boolean;
  readonly args: unknown;
  readonly content: readonly ContentBlock[];
}

/**
 * What observers see. Observers never steer control flow; they log, count and display.
 * `custom` carries plugin-specific events (`source` names the plugin).
 */
export type PipelineEvent =
  | { type: "tool_start"; toolName: string; toolCallId: string; args: Readonly<Record<string, unknown>> }
  | { type: "tool_end"; toolCallId: string; observation: ToolObservation }
  | { type: "host_tool_end"; call: HostToolCall }
  /**
   * The user ran a shell command of their own (`!` / `!!` in pi, RPC's `bash`), which may change
   * files outside any tool call; pi reports its start only (pi 1.x in every mode, 0.73 interactive).
   */
  /**
   * The user ran a shell command (`!`, RPC `bash`), which may change files. `unseen`: pi-governor
   * learned of it only from the result pi recorded (another extension handled it, or it came from
   * the SDK): the user's commands may run where pi-governor cannot see them start.
   */
  | { type: "host_user_shell"; sessionId: string; unseen?: boolean }
  | { type: "plugin_error"; error: PluginError }
  | { type: "log"; record: LogRecord }
  | { type: "custom"; source: string; name: string; data?: Record<string, unknown> };

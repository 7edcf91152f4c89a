/**
 * Follows every call pi runs, from `tool_execution_start` to `tool_execution_end`, so the stages see
 * all of them (pi's built-ins, pi's own MCP tools, other extensions' tools, calls a codemode script
 * makes) and not only pi-governor's: when each started, which call made it, how it ended.
 *
 * pi 1.x puts `parentToolCallId` on the events of nested calls and `durationMs` on the end event;
 * pi 0.x has neither, so the duration is measured here from the start event.
 */
import type { ContentBlock } from "../../core/content.ts";
import type { HostToolCall } from "../../core/events.ts";

/** Calls followed at once; beyond it the oldest start is forgotten (its end is still reported, without a start time). */
const MAX_OPEN_CALLS = 4_096;

/** How a call ended, as the breaker and the execution log read it. */
export type HostCallOutcome = HostToolCall["outcome"];

interface OpenCall {
  startedAtMs: number;
  startedMono: number;
  parentToolCallId?: string;
  blockedBy?: string;
}

/** pi's `tool_execution_start` / `tool_execution_end` fields this reads (pi 1.x adds the optional ones). */
export interface ExecutionEvent {
  toolCallId: string;
  toolName: string;
  args?: unknown;
  parentToolCallId?: string;
  durationMs?: number;
  isError?: boolean;
  result?: unknown;
}

/** Open calls of one binding, by pi's tool call id. */
export class HostCalls {
  private readonly open = new Map<string, OpenCall>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly mono: () => number = () => performance.now(),
  ) {}

  /** `tool_execution_start`. */
  started(event: ExecutionEvent): void {
    if (this.open.size >= MAX_OPEN_CALLS) this.open.delete(this.open.keys().next().value as string);
    this.open.set(event.toolCallId, {
      startedAtMs: this.now(),
      startedMono: this.mono(),
      ...(typeof event.parentToolCallId === "string" && event.parentToolCallId ? { parentToolCallId: event.parentToolCallId } : {}),
    });
  }

  /** The call that made `toolCallId`, when another tool made it (known from its start, or from `tool_call`). */
  parentOf(toolCallId: string): string | undefined {
    return this.open.get(toolCallId)?.parentToolCallId;
  }

  /** A `toolGate` stage refused the call: its end is reported as blocked. */
  blocked(toolCallId: string, reason: string): void {
    const call = this.open.get(toolCallId);
    if (call) call.blockedBy = reason;
  }

  /** `tool_execution_end`: the finished call, forgotten here. */
  ended(event: ExecutionEvent, context: { sessionId: string; governed: boolean; known?: boolean }): HostToolCall {
    const call = this.open.get(event.toolCallId);
    this.open.delete(event.toolCallId);
    const nowMs = this.now();
    const measured = call ? this.mono() - call.startedMono : 0;
    const durationMs = Math.max(0, Math.round(typeof event.durationMs === "number" && Number.isFinite(event.durationMs) ? event.durationMs : measured));
    const parent = call?.parentToolCallId ?? (typeof event.parentToolCallId === "string" && event.parentToolCallId ? event.parentToolCallId : undefined);
    const result = (event.result ?? {}) as { content?: unknown; structuredContent?: unknown };
    const content = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
    return {
      toolName: event.toolName,
      toolCallId: event.toolCallId,
      ...(parent ? { parentToolCallId: parent } : {}),
      sessionId: context.sessionId,
      startedAtMs: call?.startedAtMs ?? nowMs - durationMs,
      durationMs,
      isError: event.isError === true,
      outcome: outcomeOf(event.isError === true, result.structuredContent !== undefined, call?.blockedBy),
      ...(call?.blockedBy ? { blockedBy: call.blockedBy } : {}),
      governed: context.governed,
      ...(context.known !== undefined ? { known: context.known } : {}),
      args: event.args,
      content,
    };
  }
}

/**
 * `ok`; `error_result` when the tool answered with an error result that carries its structured
 * answer (an MCP server's `isError` CallToolResult: the server is up); `error` when it failed without
 * an answer (a transport failure, a throw, a timeout); `blocked` when a gate refused it.
 */
function outcomeOf(isError: boolean, structured: boolean, blockedBy: string | undefined): HostCallOutcome {
  if (blockedBy) return "blocked";
  if (!isError) return "ok";
  return structured ? "error_result" : "error";
}

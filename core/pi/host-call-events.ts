/**
 * Binds pi's per-call events for every tool (not only pi-governor's) to the pipeline: `tool_call`
 * runs the `toolGate` stages (a refusal blocks the call, nested calls included), and
 * `tool_execution_start`/`_end` report each finished call as a `host_tool_end` event (the execution
 * log writes a row for it, the breaker judges pi's MCP servers by it).
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { Governor } from "../host.ts";
import { piMcpNextStep, piMcpServerOf } from "../pi-mcp.ts";
import type { ToolResultValue } from "../tool-types.ts";
import { type ExecutionEvent, HostCalls } from "./host-calls.ts";

/** The parent id pi 1.x puts on the events of a nested call. */
const parentOf = (event: unknown): string | undefined => {
  const id = (event as { parentToolCallId?: unknown }).parentToolCallId;
  return typeof id === "string" && id ? id : undefined;
};

/**
 * Registers the handlers; returns the calls followed, whose `parentOf` gives a governed tool's
 * execute the id of the call that made it.
 */
export function bindHostCallEvents(pi: ExtensionAPI, attach: (ctx: ExtensionContext) => Promise<Governor>, sessionId: () => string): HostCalls {
  const calls = new HostCalls();

  pi.on("tool_execution_start", (event) => {
    calls.started(event as ExecutionEvent);
  });

  pi.on("tool_call", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const parent = parentOf(event);
    const decision = await pipeline.hooks.toolGate.run(
      {},
      {
        toolName: event.toolName,
        toolCallId: event.toolCallId,
        ...(parent ? { parentToolCallId: parent } : {}),
        input: (event.input ?? {}) as Record<string, unknown>,
        governed: pipeline.tools.has(event.toolName),
        sessionId: sessionId(),
      },
    );
    if (!decision.blockReason) return undefined;
    calls.blocked(event.toolCallId, decision.blockReason);
    return { block: true, reason: decision.blockReason };
  });

  pi.on("tool_execution_end", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const call = calls.ended(event as ExecutionEvent, { sessionId: sessionId(), governed: pipeline.tools.has(event.toolName) });
    pipeline.emit({ type: "host_tool_end", call });
  });

  return calls;
}

/**
 * A failed call of pi's own MCP tool that carries no answer from the server (pi could not reach it,
 * the call timed out or the connection dropped) gets the next step appended for the model. Results
 * with the server's own `isError` answer (`structuredContent` set) and other tools' are returned as is.
 */
export function withPiMcpNextStep(value: ToolResultValue, structuredContent: unknown): ToolResultValue {
  const server = piMcpServerOf(value.toolName);
  if (!server || !value.isError || structuredContent !== undefined) return value;
  return { ...value, content: [...value.content, { type: "text", text: piMcpNextStep(server) }] };
}

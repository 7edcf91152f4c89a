/**
 * Binds pi's per-call events for every tool (not only pi-governor's) to the pipeline: `tool_call`
 * runs the `toolGate` stages (a refusal blocks the call, nested calls included), and
 * `tool_execution_start`/`_end` report each finished call as a `host_tool_end` event (the execution
 * log writes a row for it, the breaker judges pi's MCP servers by it); `user_bash` (a shell command
 * the user ran, which may change files) is reported as `host_user_shell`, and so is a command pi
 * recorded in the session that no `user_bash` announced (`unseen`: see user-shell.ts).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Governor } from "../../core/governor.ts";
import { piMcpNextStep, piMcpServerOf } from "../../lib/mcp-identity/index.ts";
import type { ToolResultValue } from "../../core/tool-types.ts";
import { holdApproved } from "./approved-args.ts";
import { type ExecutionEvent, HostCalls } from "./host-calls.ts";
import { UserShellWatch } from "./user-shell.ts";
import { resourceCallReach } from "../../lib/mcp-identity/index.ts";
import type { McpReach, ToolInfo } from "../../core/tool-types.ts";
import { type HostTools, hostToolsFrom } from "./tool-annotations.ts";
import { uiBridgeFrom } from "./ui-bridge.ts";

/** The parent id pi 1.x puts on the events of a nested call. */
const parentOf = (event: unknown): string | undefined => {
  const id = (event as { parentToolCallId?: unknown }).parentToolCallId;
  return typeof id === "string" && id ? id : undefined;
};

/**
 * Registers the handlers; returns the calls followed, whose `parentOf` gives a governed tool's
 * execute the id of the call that made it. `runStopped` is called when a stage ends the run (a
 * blocked call with `terminate`): pi may not end it after the batch (see run-stop.ts).
 */
export function bindHostCallEvents(
  pi: ExtensionAPI,
  attach: (ctx: ExtensionContext) => Promise<Governor>,
  sessionId: () => string,
  runStopped: () => void,
): HostCalls {
  const calls = new HostCalls();
  const hostTools = hostToolsFrom(pi);

  pi.on("tool_execution_start", (event) => {
    calls.started(event as ExecutionEvent);
  });

  pi.on("tool_call", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const parent = parentOf(event);
    const governed = pipeline.tools.get(event.toolName);
    const decision = await pipeline.hooks.toolGate.run(
      {},
      {
        toolName: event.toolName,
        toolCallId: event.toolCallId,
        ...(parent ? { parentToolCallId: parent } : {}),
        input: (event.input ?? {}) as Record<string, unknown>,
        governed: governed !== undefined,
        annotations: governed?.info.annotations ?? hostTools.annotations(event.toolName),
        tool: governed?.info,
        ...withMcpReach(event.toolName, (event.input ?? {}) as Record<string, unknown>, governed?.info, hostTools),
        sessionId: sessionId(),
        ui: uiBridgeFrom(ctx),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
    );
    // What a person approved is what runs: the arguments are held as shown, or the call is refused.
    const changed = decision.approvedArgs === undefined ? undefined : holdApproved(event.toolName, event.input, decision.approvedArgs);
    const blockReason = decision.blockReason ?? changed;
    if (!blockReason) return undefined;
    calls.blocked(event.toolCallId, blockReason);
    // pi 0.84.1+ ends the run after a batch whose calls all say terminate, which a batch with a call
    // pi refused itself never does; older pi has no such field: run-stop.ts ends the run either way.
    if (decision.terminate) runStopped();
    return { block: true, reason: blockReason, ...(decision.terminate ? { terminate: true } : {}) };
  });

  // An observer: it returns nothing, so pi runs the command as it would without pi-governor.
  const userShell = new UserShellWatch();
  pi.on("user_bash", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    userShell.announce(typeof event.command === "string" ? event.command : "");
    pipeline.emit({ type: "host_user_shell", sessionId: sessionId() });
    return undefined;
  });
  // Commands pi-governor did not see start, found where pi records them (user-shell.ts): looked for
  // before each run and each model request, so no remembered answer outlives the news of one.
  const lookForUnseenCommands = async (ctx: ExtensionContext) => {
    const unseen = userShell.unseen(ctx.sessionManager);
    if (!unseen) return;
    const { pipeline } = await attach(ctx);
    pipeline.emit({ type: "host_user_shell", sessionId: sessionId(), unseen: true });
  };
  pi.on("session_start", (_event, ctx) => userShell.reset(ctx.sessionManager));
  pi.on("agent_start", (_event, ctx) => lookForUnseenCommands(ctx));
  pi.on("turn_start", (_event, ctx) => lookForUnseenCommands(ctx));

  pi.on("tool_execution_end", async (event, ctx) => {
    const { pipeline } = await attach(ctx);
    const governed = pipeline.tools.has(event.toolName);
    const call = calls.ended(event as ExecutionEvent, { sessionId: sessionId(), governed, known: governed || hostTools.has(event.toolName) });
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

/**
 * The MCP server tools a call reaches (see lib/mcp-identity/tool-identity.ts): a managed server's tool, pi's own
 * MCP tool, or pi's resource tool by its `server` argument (without one: every server pi reports
 * tools of or an extension registered).
 */
function withMcpReach(toolName: string, input: Record<string, unknown>, governed: ToolInfo | undefined, hostTools: HostTools): { mcp?: McpReach } {
  if (governed) return governed.mcp ? { mcp: { targets: [governed.mcp], everyServer: false } } : {};
  const own = hostTools.mcpIdentities(toolName);
  if (own.length) return { mcp: { targets: own, everyServer: false } };
  const resource = resourceCallReach(toolName, input, []);
  if (!resource) return {};
  if (!resource.everyServer) return { mcp: resource };
  // Every server pi may reach: those it reports tools of, and those extensions registered (still
  // connecting ones too: a listing reaches them once they are up).
  const registered = hostTools.registeredMcpServers();
  const known = [...new Set([...hostTools.mcpServers(), ...(registered ?? [])])];
  return { mcp: { ...resourceCallReach(toolName, input, known)!, ...(registered ? {} : { incomplete: true }) } };
}

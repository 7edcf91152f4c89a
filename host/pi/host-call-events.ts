/**
 * Every pi event of a tool call, for every tool pi runs (not only pi-governor's): `tool_call` runs
 * the `toolGate` stages (a refusal blocks the call, nested calls included; a stop ends the run:
 * run-stop.ts), `tool_execution_start` starts following the call, a governed tool's `execute` runs
 * its composed chain, `tool_execution_end` reports the finished call as a `host_tool_end` event (the
 * execution log writes a row for it, the breaker judges pi's MCP servers by it), and `tool_result`
 * runs the `toolResult` stages.
 */
import type { Governor } from "../../core/governor.ts";
import { observationDetails } from "../../core/observation.ts";
import { resultMeta } from "../../core/result-meta.ts";
import type { McpReach, ToolInfo, ToolResultValue } from "../../core/tool-types.ts";
import { piCutMcpName, piMcpNextStep, piMcpServerOf, resourceCallReach, serverCutIdentity } from "../../lib/mcp-identity/index.ts";
import { holdApproved } from "./approved-args.ts";
import type { BoundSession } from "./bound-session.ts";
import { HostCalls } from "./host-calls.ts";
import type { PiApi, PiBlock, PiContext, PiTool, PiToolCallEvent, PiToolResultEvent } from "./pi-api.ts";
import { isNestedResult, type PiToolResultPatch, resultPatch } from "./result-patch.ts";
import { RunStop } from "./run-stop.ts";
import { type HostTools, hostToolsFrom, piHonoursTerminate } from "./tool-annotations.ts";
import { uiBridgeFrom } from "./ui-bridge.ts";

/** What the other bindings ask of the tool-call binding. */
export interface ToolCallBinding {
  /** Registers the tools `governor` offers that pi does not have yet (pi accepts tools after load). */
  registerTools(governor: Governor): void;
  /** Takes the registered tools `governor` lacks out of pi's active set, and puts back those it offers again. */
  activateTools(governor: Governor): void;
  /** A model request is about to be sent (pi's `context` event): true when a stop ends the run now (run-stop.ts). */
  stopBeforeRequest(): boolean;
  /** A new run began: a stop of the run before no longer holds. */
  runStarted(): void;
}

/** The parent id pi 1.x puts on the events of a nested call. */
const parentOf = (event: { parentToolCallId?: unknown }): string | undefined => {
  const id = event.parentToolCallId;
  return typeof id === "string" && id ? id : undefined;
};

/** How a governed call ended, from the details its execute returned (undefined for other tools' results). */
const observedStatus = (details: unknown): string | undefined =>
  resultMeta({ details: (details ?? undefined) as Record<string, unknown> | undefined }).call?.status;

/** Binds the events of a tool call for `session` and registers the tools of its first governor. */
export function bindToolCalls(pi: PiApi, session: BoundSession): ToolCallBinding {
  const calls = new HostCalls();
  const hostTools = hostToolsFrom(pi);
  const registered = new Set<string>();
  const deactivated = new Set<string>();
  // A stopped run ends, also where pi does not end it after the batch (see run-stop.ts).
  const runStop = new RunStop(piHonoursTerminate(pi));

  pi.on("tool_execution_start", (event) => {
    calls.started(event);
  });

  pi.on("tool_call", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    // A steer or follow-up the user sent that pi has not delivered yet (pi 0.73 reports none on arrival).
    if (userMessageWaiting(ctx)) pipeline.emit({ type: "host_user_message", sessionId: session.sessionId });
    const decision = await gate(pipeline, event, ctx, session.sessionId, hostTools);
    // What a person approved is what runs: the arguments are held as shown, or the call is refused.
    const changed = decision.approvedArgs === undefined ? undefined : holdApproved(event.toolName, event.input, decision.approvedArgs);
    const blockReason = decision.blockReason ?? changed;
    if (!blockReason) return undefined;
    calls.blocked(event.toolCallId, blockReason);
    // pi 0.84.1+ ends the run after a batch whose calls all say terminate, which a batch with a call
    // pi refused itself never does; older pi has no such field: run-stop.ts ends the run either way.
    if (decision.terminate) runStop.stopped();
    return { block: true, reason: blockReason, ...(decision.terminate ? { terminate: true } : {}) } satisfies PiBlock;
  });

  pi.on("tool_execution_end", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    const governed = pipeline.tools.has(event.toolName);
    const call = calls.ended(event, { sessionId: session.sessionId, governed, known: governed || hostTools.has(event.toolName) });
    pipeline.emit({ type: "host_tool_end", call });
  });

  pi.on("tool_result", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    return resultStages(pipeline, event, ctx, session.sessionId);
  });

  const register = (name: string, owner: Governor) => {
    registered.add(name);
    pi.registerTool(governedTool(name, owner, session, calls));
  };
  for (const name of session.governor.pipeline.tools.keys()) register(name, session.governor);

  return {
    registerTools(governor) {
      for (const name of governor.pipeline.tools.keys()) if (!registered.has(name)) register(name, governor);
    },
    activateTools(governor) {
      try {
        const missing = [...registered].filter((n) => !governor.pipeline.tools.has(n));
        const back = [...deactivated].filter((n) => governor.pipeline.tools.has(n));
        if (!missing.length && !back.length) return;
        const active = new Set(pi.getActiveTools());
        for (const n of missing) if (active.delete(n)) deactivated.add(n);
        for (const n of back) active.add(n), deactivated.delete(n);
        pi.setActiveTools([...active]);
      } catch {
        // Before pi bound the session the active set cannot be changed; execute still refuses the tool.
      }
    },
    stopBeforeRequest: () => runStop.beforeRequest(),
    runStarted: () => runStop.newRun(),
  };
}

/**
 * pi's definition of the governed tool `name` as `owner` declares it: its execute runs the tool's
 * composed chain in the session's governor (which may lack it after a cwd change: then it refuses).
 */
function governedTool(name: string, owner: Governor, session: BoundSession, calls: HostCalls): PiTool {
  const def = owner.pipeline.tools.get(name)!.definition;
  return {
    name,
    label: def.label ?? name,
    description: def.description,
    parameters: def.parameters,
    ...(def.promptSnippet ? { promptSnippet: def.promptSnippet } : {}),
    ...(def.promptGuidelines ? { promptGuidelines: def.promptGuidelines } : {}),
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      const { pipeline } = await session.attach(ctx);
      if (!pipeline.tools.has(name)) {
        throw new Error(
          `${name} is not available in this session: the pi-governor config for ${ctx.cwd} does not offer it (/governor status lists the tools).`,
        );
      }
      const parentToolCallId = calls.parentOf(toolCallId);
      const obs = await pipeline.callTool(name, (params ?? {}) as Record<string, unknown>, {
        toolCallId,
        ...(parentToolCallId ? { parentToolCallId } : {}),
        sessionId: session.sessionId,
        ...(signal ? { signal } : {}),
        ...(onUpdate ? { onUpdate: (p) => onUpdate({ content: p.content, details: p.details ?? {} }) } : {}),
      });
      return { content: obs.content, details: observationDetails(obs) };
    },
  };
}

/** The `toolGate` stages' decision on a `tool_call`. */
function gate(pipeline: Governor["pipeline"], event: PiToolCallEvent, ctx: PiContext, sessionId: string, hostTools: HostTools) {
  const parent = parentOf(event);
  const governed = pipeline.tools.get(event.toolName);
  return pipeline.hooks.toolGate.run(
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
      sessionId,
      ui: uiBridgeFrom(ctx),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
  );
}

/**
 * The `toolResult` stages' patch for a `tool_result`. A nested call's result is the calling script's
 * input, not the model's: no stage cuts, stores or annotates it; only a failed call of pi-governor's
 * own tool is flagged, so the script's call rejects.
 */
async function resultStages(
  pipeline: Governor["pipeline"],
  event: PiToolResultEvent,
  ctx: PiContext,
  sessionId: string,
): Promise<PiToolResultPatch | undefined> {
  const governed = pipeline.tools.get(event.toolName);
  const status = observedStatus(event.details);
  const failedGoverned = governed !== undefined && status !== undefined && status !== "SUCCESS";
  if (isNestedResult(event)) return failedGoverned && !event.isError ? { isError: true } : undefined;
  const value: ToolResultValue = {
    toolName: event.toolName,
    toolCallId: event.toolCallId,
    input: event.input,
    content: event.content as ToolResultValue["content"],
    details: (event.details ?? undefined) as Record<string, unknown> | undefined,
    isError: event.isError,
  };
  if (failedGoverned) value.isError = true;
  const out = await pipeline.hooks.toolResult.run(value, { tool: governed?.info, sessionId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  return resultPatch(event, withPiMcpNextStep(out, event.structuredContent));
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

/** Whether a message the user sent waits to be delivered into the run (false where pi cannot say). */
function userMessageWaiting(ctx: PiContext): boolean {
  try {
    return ctx.hasPendingMessages?.() === true;
  } catch {
    return false;
  }
}

/**
 * The MCP server tools a call reaches (see lib/mcp-identity/tool-identity.ts): a managed server's
 * tool, pi's own MCP tool, a tool whose name pi cut inside a server's name (each server it may be),
 * or pi's resource tool by its `server` argument (without one: every server pi reports tools of or
 * an extension registered).
 */
function withMcpReach(toolName: string, input: Record<string, unknown>, governed: ToolInfo | undefined, hostTools: HostTools): { mcp?: McpReach } {
  if (governed) return governed.mcp ? { mcp: { targets: [governed.mcp], everyServer: false } } : {};
  const own = hostTools.mcpIdentities(toolName);
  if (own.length) return { mcp: { targets: own, everyServer: false } };
  // Every server pi may reach: those it reports tools of, and those extensions registered (still
  // connecting ones too: a listing reaches them once they are up).
  const knownServers = () => {
    const registered = hostTools.registeredMcpServers();
    return { known: [...new Set([...hostTools.mcpServers(), ...(registered ?? [])])], registered };
  };
  // A name pi cut inside a server's name with no namespace to say which: every server it may be.
  if (piCutMcpName(toolName)) {
    const targets = knownServers().known.flatMap((server) => serverCutIdentity(toolName, server) ?? []);
    return { mcp: { targets, everyServer: false, serverCut: true } };
  }
  const resource = resourceCallReach(toolName, input, []);
  if (!resource) return {};
  if (!resource.everyServer) return { mcp: resource };
  const { known, registered } = knownServers();
  return { mcp: { ...resourceCallReach(toolName, input, known)!, ...(registered ? {} : { incomplete: true }) } };
}

/**
 * Circuits for pi's own MCP servers (pi 1.x, tools `mcp__<server>__<tool>`): pi runs those calls, so
 * the breaker cannot wrap them. It judges them from pi's events instead: `toolGate` (pi's
 * `tool_call`, nested calls of codemode scripts included) admits or blocks a call, and the
 * `host_tool_end` event reports how an admitted call ended. One circuit per server.
 *
 * A failure is a call that ended without an answer from the server (pi could not reach it, the
 * connection dropped, pi's own timeout); the server's `isError` answer proves it is up. Calls pi
 * refused before running (invalid arguments) never pass the gate and count for nothing; aborted
 * calls are neutral.
 */
import { contentText, type Clock, type HostToolCall, type ToolGateDecision, type ToolGateInfo } from "../../core/index.ts";
import { formatSeconds } from "../../core/observation.ts";
import { piMcpNextStep, piMcpServerOf } from "../../lib/mcp-identity/index.ts";
import { Admission, Circuit } from "./circuit.ts";
import type { BreakerOptions } from "./config.ts";

/** Calls admitted and not yet ended that are remembered (a call whose end never comes is forgotten past this). */
const MAX_ADMITTED = 4_096;

/** The circuit key of pi's MCP server `server` (apart from pi-governor's own servers of the same name). */
export const piMcpCircuitKey = (server: string): string => `pi-mcp:${server}`;

/** Text of a call pi ended because it was aborted (Esc, the run ended): says nothing about the server. */
const ABORTED = /\b(abort(ed)?|cancell?ed)\b/i;

/** What {@link piMcpCircuits} needs. */
export interface PiMcpCircuitDeps {
  clock: Clock;
  onStateChange?: (info: { key: string; toolName: string; state: "open" | "closed"; category?: string; cooldownMs: number }) => void;
}

/** The gate and the observer that run the circuits of pi's MCP servers, plus the circuits (status, tests). */
export function piMcpCircuits(options: BreakerOptions, deps: PiMcpCircuitDeps) {
  const circuits = new Map<string, Circuit>();
  /** Admitted calls: toolCallId -> circuit key and whether the call is the half-open probe. */
  const admitted = new Map<string, { key: string; probe: boolean }>();
  const { clock, onStateChange } = deps;

  const circuitOf = (key: string, toolName: string): Circuit => {
    let c = circuits.get(key);
    if (!c) {
      const own = options.perTool[toolName];
      c = new Circuit(key, {
        failureThreshold: own?.failureThreshold ?? options.failureThreshold,
        failureRatio: options.failureRatio,
        ratioWindow: options.ratioWindow,
        cooldownMs: own?.cooldownMs ?? options.cooldownMs,
      });
      circuits.set(key, c);
    }
    return c;
  };

  const gate = (_decision: ToolGateDecision, info: ToolGateInfo): ToolGateDecision | undefined => {
    if (info.governed || options.perTool[info.toolName]?.enabled === false) return undefined;
    const server = piMcpServerOf(info.toolName);
    if (!server) return undefined;
    const key = piMcpCircuitKey(server);
    const c = circuitOf(key, info.toolName);
    const now = clock.now();
    const admission = c.admit(now);
    if (admission === Admission.Reject) return { blockReason: openMessage(info.toolName, server, c, now) };
    if (admitted.size >= MAX_ADMITTED) admitted.delete(admitted.keys().next().value as string);
    admitted.set(info.toolCallId, { key, probe: admission === Admission.Probe });
    return undefined;
  };

  const observe = (call: HostToolCall): void => {
    const entry = admitted.get(call.toolCallId);
    if (!entry) return;
    admitted.delete(call.toolCallId);
    const c = circuits.get(entry.key)!;
    if (call.outcome === "ok" || call.outcome === "error_result") {
      const wasOpen = c.state !== "closed";
      c.onSuccess(entry.probe);
      if (wasOpen && c.state === "closed") onStateChange?.({ key: entry.key, toolName: call.toolName, state: "closed", cooldownMs: c.settings.cooldownMs });
    } else if (call.outcome === "error" && !ABORTED.test(contentText(call.content).slice(0, 2_000))) {
      if (c.onFailure(entry.probe, "pi_mcp_error", clock.now()))
        onStateChange?.({ key: entry.key, toolName: call.toolName, state: "open", category: "pi_mcp_error", cooldownMs: c.settings.cooldownMs });
    } else {
      c.onNeutral(entry.probe);
    }
  };

  return { gate, observe, circuits: circuits as ReadonlyMap<string, Circuit> };
}

/** The block reason the model reads: what is paused, until when, and the next step. */
function openMessage(toolName: string, server: string, c: Circuit, now: number): string {
  // pi registered the name, but it is shown to the model: only plain name characters, bounded.
  const shown = toolName.replace(/[^\w.-]/g, "?").slice(0, 128);
  const waitMs = c.retryInMs(now);
  const when = waitMs > 0 ? `in ${formatSeconds(Math.ceil(waitMs / 100) * 100)}` : "as soon as the trial call in flight ends";
  return (
    `pi-governor: ${shown} was not run: pi's MCP server "${server}" failed ${c.openedAfter} calls in a row, so its calls are paused ` +
    `until one trial call is let through ${when}. Do not call its tools again before then; use another approach or tell the user. ${piMcpNextStep(server)}`
  );
}

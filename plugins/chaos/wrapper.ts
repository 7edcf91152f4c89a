/**
 * The two chaos layers of the tool-call onion.
 *
 * - The injector ({@link CHAOS_STAGE}, TOOL_STAGE.TRANSPORT: innermost, inside retry, the per-attempt
 *   timeout and the budget's re-issues) rolls the dice per attempt and fakes what a broken transport
 *   does: the same raw failures, classified by core's classifyError into the same ERROR observation
 *   the pipeline's terminal makes for a real throw. Retry, timeout, breaker and budget cannot tell.
 * - The marker ({@link CHAOS_MARK_STAGE}, just inside the execution log) collects every fault of
 *   the call's attempts and writes `details.chaos = { injected: true, faults: [...] }` onto the final
 *   observation, also when an outer layer made it (a hang ends as the timeout's TIMEOUT_EXCEEDED).
 */
import {
  classifyError,
  failure,
  TOOL_STAGE,
  type Clock,
  type GovernorError,
  type ToolCallContext,
  type ToolHandler,
  type ToolInfo,
  type ToolObservation,
  type ToolWrapper,
} from "../../core/index.ts";
import { sleep } from "../../core/services.ts";
import type { ServerProcess } from "../../lib/mcp/index.ts";
import type { FaultRule } from "./config.ts";
import { callTrace, type ChaosController, type InjectedFault, type MatchedRule } from "./controller.ts";
import { globMatcher } from "./glob.ts";
import { between } from "./random.ts";
import { fillerText, INJECTED_NOTE, isErrorResult, transportError } from "./transport-errors.ts";

/** Where the injector sits: right above the transport. */
export const CHAOS_STAGE = TOOL_STAGE.TRANSPORT;
/** Where the marker sits: inside the execution log (OBSERVE) and the repeated-call check (OBSERVE + 50), outside the breaker. */
export const CHAOS_MARK_STAGE = TOOL_STAGE.OBSERVE + 60;

/** Hang bound when a hang rule does not set `maxMs`, in milliseconds. */
export const DEFAULT_HANG_MS = 600_000;

/** The rules that apply to `tool`; kill and stop only where a server process is known. */
export function rulesFor(faults: readonly FaultRule[], tool: ToolInfo, serverProcess: ServerProcess | undefined): MatchedRule[] {
  const out: MatchedRule[] = [];
  faults.forEach((rule, index) => {
    if (!globMatcher(rule.tools ?? "*")(tool.name)) return;
    if ((rule.type === "kill" || rule.type === "stop") && !serverProcess) return;
    out.push({ rule, index });
  });
  return out;
}

/** What the injector needs besides the rules. */
export interface InjectorDeps {
  controller: ChaosController;
  clock: Clock;
  /** The server process behind a tool (MCP-backed tools), looked up once per tool at seal. */
  serverProcess(tool: ToolInfo): ServerProcess | undefined;
}

/** The injector wrapper. Tools no rule matches get no layer at all. */
export function chaosInjector(faults: readonly FaultRule[], deps: InjectorDeps): ToolWrapper {
  const { controller } = deps;
  return (next, tool) => {
    const proc = deps.serverProcess(tool);
    const rules = rulesFor(faults, tool, proc);
    if (rules.length === 0) return next;
    return (call) => {
      if (!controller.active) return next(call);
      const hit = controller.pick(rules);
      return hit ? inject(deps, hit, next, call, tool, proc) : next(call);
    };
  };
}

/** Injects the fault `hit` names into this call. */
function inject(
  deps: InjectorDeps,
  hit: MatchedRule,
  next: ToolHandler,
  call: ToolCallContext,
  tool: ToolInfo,
  proc: ServerProcess | undefined,
): Promise<ToolObservation> {
  const { controller } = deps;
  const trace = callTrace.getStore();
  const base = { rule: hit.index, attempt: call.attempt };
  const record = (fault: InjectedFault, obs?: ToolObservation): void => {
    controller.record(call, fault, trace);
    // Without the marker (a custom stack), mark the observation this layer returns.
    if (!trace && obs) obs.details = { ...obs.details, chaos: { injected: true, faults: [fault] } };
  };
  const rule = hit.rule;
  switch (rule.type) {
    case "error": {
      const obs = failure(tool.name, noted(classifyError(transportError(rule.category, rule.retryAfterMs), { subject: tool.name })));
      record({ ...base, type: "error", category: obs.error.category }, obs);
      return Promise.resolve(obs);
    }
    case "isError": {
      const obs = failure(tool.name, noted(classifyError(isErrorResult(rule.text), { subject: tool.name })));
      record({ ...base, type: "isError", category: obs.error.category }, obs);
      return Promise.resolve(obs);
    }
    case "latency": {
      const ms = between(() => controller.roll(), rule.minMs, rule.maxMs);
      record({ ...base, type: "latency", ms });
      return delayed(deps.clock, ms, next, call, tool);
    }
    case "hang":
      record({ ...base, type: "hang" });
      return delayed(deps.clock, rule.maxMs ?? DEFAULT_HANG_MS, next, call, tool);
    case "oversize":
      return next(call).then((obs) => {
        if (obs.status !== "SUCCESS") return obs;
        obs.content = [...obs.content, { type: "text", text: fillerText(rule.bytes) }];
        record({ ...base, type: "oversize", bytes: rule.bytes }, obs);
        return obs;
      });
    case "kill":
    case "stop":
      return midCall(deps, rule, base, next, call, proc!, record);
  }
}

/** Waits `ms` (ended early by the attempt's abort), then makes the real call. */
async function delayed(clock: InjectorDeps["clock"], ms: number, next: ToolHandler, call: ToolCallContext, tool: ToolInfo): Promise<ToolObservation> {
  try {
    await sleep(clock, ms, call.signal);
  } catch (reason) {
    // Aborted (timeout or Esc): the outer layer has its answer; this one is what a cancelled request gives.
    return failure(tool.name, classifyError(reason ?? new Error("This operation was aborted"), { subject: tool.name }));
  }
  return next(call);
}

/** Makes the real call and signals the server process at a random moment while it runs. */
function midCall(
  deps: InjectorDeps,
  rule: Extract<FaultRule, { type: "kill" | "stop" }>,
  base: { rule: number; attempt: number },
  next: ToolHandler,
  call: ToolCallContext,
  proc: ServerProcess,
  record: (fault: InjectedFault, obs?: ToolObservation) => void,
): Promise<ToolObservation> {
  const { controller, clock } = deps;
  const afterMs = between(() => controller.roll(), rule.afterMinMs, rule.afterMaxMs);
  let done = false;
  const fire = (): void => {
    const pid = proc.pid();
    if (done || pid === undefined) return;
    const stopMs = rule.type === "stop" ? rule.stopMs : 0;
    if (controller.signal(pid, rule.type, stopMs)) record({ ...base, type: rule.type, ms: afterMs, pid, ...(rule.type === "stop" ? { stopMs } : {}) });
  };
  const pending = next(call);
  const handle = clock.setTimeout(fire, afterMs);
  return pending.finally(() => {
    done = true;
    clock.clearTimeout(handle);
  });
}

/** Ends the error's message with the injected note (some classified messages drop the raw text). */
function noted(error: GovernorError): GovernorError {
  if (!error.message.includes(INJECTED_NOTE)) error.message = `${error.message} ${INJECTED_NOTE}`;
  return error;
}

/** The marker wrapper: runs the call with a trace and writes the faults onto the final observation. */
export function chaosMarker(faults: readonly FaultRule[], controller: ChaosController): ToolWrapper {
  return (next, tool) => {
    if (!faults.some((rule) => globMatcher(rule.tools ?? "*")(tool.name))) return next;
    return async (call) => {
      if (!controller.active) return next(call);
      const trace: InjectedFault[] = [];
      const obs = await callTrace.run(trace, () => next(call));
      if (trace.length) obs.details = { ...obs.details, chaos: { injected: true, faults: trace } };
      return obs;
    };
  };
}

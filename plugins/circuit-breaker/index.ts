/**
 * `governor:breaker` (config key `breaker`, TOOL_STAGE.BREAKER: outside retry, so a retried call counts
 * once): after `failureThreshold` consecutive failures (or a failure ratio) of a tool or server, calls
 * fail fast with a `circuit_open` error for `cooldownMs`; then one probe call is let through
 * (half-open). Its success closes the circuit, its failure opens it for another cool-down.
 *
 * Failures are TIMEOUT_EXCEEDED and ERROR observations whose category is in `countCategories`;
 * cancelled calls and the model's own mistakes (invalid input) say nothing about the server and are
 * neutral. pi's own MCP servers (pi 1.x, `mcp__<server>__<tool>`) get one circuit each, run from pi's
 * events (pi-mcp.ts): an open one blocks their calls at pi's `tool_call`, with the next step.
 */
import { definePlugin, EVENT_STAGE, GATE_STAGE, TOOL_STAGE, type Clock, type ToolInfo, type ToolObservation, type ToolWrapper } from "../../core/index.ts";
import { REHYDRATION_TAG, serverOfTags } from "../../lib/tags/index.ts";
import { Admission, Circuit, type CircuitSettings } from "./circuit.ts";
import { breakerDefaults, type BreakerOptions, breakerSchema } from "./config.ts";
import { circuitOpenObservation } from "./open-error.ts";
import { piMcpCircuits } from "./pi-mcp.ts";

export { breakerDefaults, breakerSchema, type BreakerOptions, COUNTABLE_CATEGORIES } from "./config.ts";
export { Admission, Circuit, type CircuitSettings, type CircuitState } from "./circuit.ts";
export { piMcpCircuitKey, piMcpCircuits } from "./pi-mcp.ts";

/** Plugin name, as taps, logs and errors show it. */
export const BREAKER_PLUGIN = "governor:breaker";

/** The circuit key of `tool`: its name, or with scope "server" its server tag (`server:<name>` / `mcp:<name>`) or else its owner plugin. */
export function circuitKey(options: BreakerOptions, tool: ToolInfo): string {
  if (options.scope === "tool") return tool.name;
  return serverOfTags(tool.tags) ?? tool.owner;
}

/** What the breaker wrapper needs besides its options. */
export interface BreakerDeps {
  clock: Clock;
  /** Called when a circuit opens or closes (logs, UI). */
  onStateChange?: (info: { key: string; toolName: string; state: "open" | "closed"; category?: string; cooldownMs: number }) => void;
}

/** The breaker wrapper plus its circuits (for status and tests). */
export function breakerWrapper(options: BreakerOptions, deps: BreakerDeps): { wrapper: ToolWrapper; circuits: ReadonlyMap<string, Circuit> } {
  const circuits = new Map<string, Circuit>();
  const counted = new Set<string>(options.countCategories);
  const { clock, onStateChange } = deps;
  const wrapper: ToolWrapper = (next, tool) => {
    const own = options.perTool[tool.name];
    if (own?.enabled === false) return next;
    // A rehydration tool (blob_read) reads a local file: no server whose health a circuit could
    // judge, and it must keep answering while other circuits are open.
    if (tool.tags.includes(REHYDRATION_TAG)) return next;
    const key = circuitKey(options, tool);
    let circuit = circuits.get(key);
    if (!circuit) {
      const settings: CircuitSettings = {
        failureThreshold: own?.failureThreshold ?? options.failureThreshold,
        failureRatio: options.failureRatio,
        ratioWindow: options.ratioWindow,
        cooldownMs: own?.cooldownMs ?? options.cooldownMs,
      };
      circuit = new Circuit(key, settings);
      circuits.set(key, circuit);
    }
    const c = circuit;
    return async (call) => {
      // The pipeline stamped startedAt a moment ago: good enough for the cool-down check, one clock read saved.
      const admission = c.admit(call.startedAt);
      if (admission === Admission.Reject) return circuitOpenObservation(tool.name, c, clock.now());
      const obs = await next(call);
      const probe = admission === Admission.Probe;
      const verdict = judge(obs, counted, call.signal);
      if (verdict === "success") {
        const wasOpen = c.state !== "closed";
        c.onSuccess(probe);
        if (wasOpen && c.state === "closed") onStateChange?.({ key, toolName: tool.name, state: "closed", cooldownMs: c.settings.cooldownMs });
      } else if (verdict === "failure") {
        const category = obs.status === "ERROR" ? obs.error.category : "timeout";
        if (c.onFailure(probe, category, clock.now()))
          onStateChange?.({ key, toolName: tool.name, state: "open", category, cooldownMs: c.settings.cooldownMs });
      } else {
        c.onNeutral(probe);
      }
      return obs;
    };
  };
  return { wrapper, circuits };
}

/** Whether an outcome speaks for (success), against (failure) or not at all about (neutral) the server's health. */
function judge(obs: ToolObservation, counted: ReadonlySet<string>, signal: AbortSignal): "success" | "failure" | "neutral" {
  switch (obs.status) {
    case "SUCCESS":
      return "success";
    case "TIMEOUT_EXCEEDED":
      return "failure";
    case "ERROR":
      if (signal.aborted) return "neutral";
      return counted.has(obs.error.category) ? "failure" : "neutral";
  }
}

/** The breaker plugin factory: `breaker()` or `breaker({ scope: "server" })`. */
export const breaker = definePlugin({
  name: BREAKER_PLUGIN,
  configKey: "breaker",
  description:
    "Fails fast for a cool-down after repeated failures of a tool or server (pi-governor's, and pi's own MCP servers), then lets one probe call through (half-open).",
  schema: breakerSchema,
  defaults: breakerDefaults,
  apply(pipeline, config, services) {
    const logger = services.logger;
    const onStateChange: BreakerDeps["onStateChange"] = (info) => {
      if (info.state === "open")
        logger.warn(`circuit ${info.key} opened after repeated failures (last: ${info.category}); failing fast for ${info.cooldownMs} ms`, info);
      else logger.info(`circuit ${info.key} closed: the probe call succeeded`, info);
      pipeline.emit({ type: "custom", source: BREAKER_PLUGIN, name: `circuit_${info.state}`, data: { ...info } });
    };
    const { wrapper } = breakerWrapper(config, { clock: services.clock, onStateChange });
    pipeline.hooks.toolCall.tap({ name: BREAKER_PLUGIN, stage: TOOL_STAGE.BREAKER }, wrapper);
    // pi's own MCP servers: pi runs their calls, so they are admitted at pi's tool_call and judged at their end.
    const piMcp = piMcpCircuits(config, { clock: services.clock, onStateChange });
    pipeline.hooks.toolGate.tap({ name: BREAKER_PLUGIN, stage: GATE_STAGE.BREAKER }, piMcp.gate);
    pipeline.hooks.event.tap({ name: BREAKER_PLUGIN, stage: EVENT_STAGE.BREAKER }, (event) => {
      if (event.type === "host_tool_end") piMcp.observe(event.call);
    });
  },
});

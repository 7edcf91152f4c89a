/**
 * `governor:chaos` (config key `chaos`, off by default; the whole section is trusted): fault
 * injection for a team's own tests and soak runs, like Polly's Simmy. Per tool (glob) and per
 * attempt, seeded dice pick one of the configured faults:
 *
 * - `latency` (fixed or a range), `error` of a category (network, rate_limit with retry-after, auth,
 *   invalid_input, connection_lost, timeout, mcp, unknown), an `isError` result, a `hang` until the
 *   attempt's timeout aborts it, `oversize` output (N bytes appended to a real answer);
 * - for MCP-backed tools (managed servers of the mcp-servers and kota plugins): `kill` (SIGKILL) or
 *   `stop` (SIGSTOP, SIGCONT after `stopMs`) of the server process mid-call.
 *
 * The injector sits right above the transport (inside retry, timeout and budget), so every
 * resilience setting is exercised by faults that look like the real thing. Every injected fault is
 * logged, sent as a `custom` pipeline event named `chaos.injected`, and recorded on the call's
 * observation as `details.chaos = { injected: true, faults: [...] }` (so the execution log and pi's
 * stored details show it). `/<root> chaos on|off|status` pauses and resumes it in a live session.
 */
import { definePlugin, LIFECYCLE_STAGE } from "../../core/index.ts";
import { serverProcessFor } from "../../lib/mcp/index.ts";
import { registerChaosCommand } from "./commands.ts";
import { CHAOS_TRUSTED_KEYS, chaosDefaults, chaosSchema, checkChaos } from "./config.ts";
import { CHAOS_PLUGIN, ChaosController } from "./controller.ts";
import { CHAOS_MARK_STAGE, CHAOS_STAGE, chaosInjector, chaosMarker } from "./wrapper.ts";

export { CHAOS_ERROR_CATEGORIES, chaosDefaults, chaosSchema, type ChaosErrorCategory, type ChaosOptions, type FaultRule, type FaultType } from "./config.ts";
export { CHAOS_EVENT, CHAOS_PLUGIN, ChaosController, type InjectedFault } from "./controller.ts";
export { CHAOS_MARK_STAGE, CHAOS_STAGE, chaosInjector, chaosMarker } from "./wrapper.ts";
export { chaosStatusText } from "./commands.ts";
export { seededRandom } from "./random.ts";
export { globMatcher } from "./glob.ts";
export { INJECTED_NOTE, transportError } from "./transport-errors.ts";

const controllers = new WeakMap<object, ChaosController>();

/** The chaos controller of a pipeline (tests read counts and flip `active`), if the plugin is enabled in it. */
export function chaosControllerOf(pipeline: object): ChaosController | undefined {
  return controllers.get(pipeline);
}

/** Lifecycle stage of the shutdown tap: before the servers close, so no stopped server waits for SIGCONT. */
const SHUTDOWN_STAGE = LIFECYCLE_STAGE.OBSERVE - 50;

/** The chaos plugin factory: `chaos({ enabled: true, seed: 7, faults: [...] })`. Off by default. */
export const chaos = definePlugin({
  name: CHAOS_PLUGIN,
  configKey: "chaos",
  description:
    "Fault injection for tests (off by default): seeded latency, errors by category, isError results, hangs, oversized output, and SIGKILL/SIGSTOP of MCP server processes mid-call.",
  schema: chaosSchema,
  defaults: chaosDefaults,
  enabledByDefault: false,
  // The whole section, `enabled` included: a repository must not be able to break its users' tools.
  trustedKeys: CHAOS_TRUSTED_KEYS as unknown as Array<keyof typeof chaosDefaults & string>,
  check: checkChaos,
  apply(pipeline, config, services) {
    const seed = config.seed ?? Math.floor(Math.random() * 4_294_967_296) >>> 0;
    const controller = new ChaosController(seed, config.startActive, { clock: services.clock, logger: services.logger, pipeline });
    controllers.set(pipeline, controller);
    services.logger.warn(
      `chaos is enabled: ${config.faults.length} fault rule(s), seed ${seed}, ${config.startActive ? "injecting now" : "paused until /" + services.commandRoot + " chaos on"}`,
      { seed },
    );
    pipeline.hooks.toolCall.tap({ name: CHAOS_PLUGIN, stage: CHAOS_MARK_STAGE }, chaosMarker(config.faults, controller));
    pipeline.hooks.toolCall.tap(
      { name: CHAOS_PLUGIN, stage: CHAOS_STAGE },
      chaosInjector(config.faults, { controller, clock: services.clock, serverProcess: (tool) => serverProcessFor(pipeline, tool.tags) }),
    );
    registerChaosCommand(pipeline, services.commandRoot, controller, config.faults);
    pipeline.hooks.sessionStart.tap({ name: CHAOS_PLUGIN }, () => services.ui().setStatus("chaos", controller.active ? "chaos ON" : undefined));
    pipeline.hooks.sessionShutdown.tap({ name: CHAOS_PLUGIN, stage: SHUTDOWN_STAGE }, () => controller.close());
  },
});

/**
 * The host entry: what runs plugins rather than what plugins are made of. Building a governor from a
 * preset and config layers (`createGovernor`), binding it to pi (`createExtension`, `bindGovernor`),
 * loading and resolving the config files, and the adapter's own helpers. Presets' `extension.ts`
 * files, the command line and the testing kit import it (besides the SDK, `core/index.ts`); plugins
 * never do. Outside this repository it is `pi-governor/host`.
 */
export { createGovernor, type GovernorOptions } from "./governor.ts";
export { bindGovernor, createExtension, type ExtensionOptions } from "./pi/extension.ts";
export type { PiExtensionApi } from "./pi/extension-api.ts";
export type { CallOptions, SealedTool } from "../core/pipeline.ts";
export { observationDetails } from "../core/observation.ts";
export { createLogger } from "../core/services.ts";
export { fixedOverhead, formatFixedOverhead, type FixedOverhead } from "./tool-overhead.ts";
export { type ConfigLayer, type ConfigProblem, formatProblems, type ResolvedConfig, resolveConfig } from "./config/resolve.ts";
export { CONFIG_MAX_BYTES, loadConfigLayers } from "./config/layers.ts";

/**
 * pi-governor's public API: the pipeline, the plugin contract, observations and errors, the typed
 * result metadata stages hand on (result-meta.ts), the one size measure (size.ts), the shared tool
 * tags (tags.ts), config, and the pi adapter. Plugins and presets import from here.
 */
export { STAGE } from "./stages.ts";
export { visible, visibleLines } from "./visible.ts";
export * from "./content.ts";
export * from "./errors.ts";
export * from "./observation.ts";
export * from "./result-meta.ts";
export * from "./size.ts";
export * from "./tags.ts";
export { classifyError, tail, type ClassifyContext } from "./classify.ts";
export type { HostToolCall, PipelineEvent } from "./events.ts";
export { PI_MCP_PREFIX, piMcpNextStep, piMcpServerOf } from "./pi-mcp.ts";
export type { TapOptions, TapRecord } from "./hooks.ts";
export { Pipeline, type CallOptions, type SealedTool } from "./pipeline.ts";
export * from "./tool-types.ts";
export { fixedOverhead, formatFixedOverhead, type FixedOverhead } from "./tool-overhead.ts";
export {
  definePlugin,
  definePreset,
  type CrossFieldProblem,
  type GovernorPlugin,
  type PluginFactory,
  type PluginSpec,
  type Preset,
  type WithEnabled,
} from "./plugin.ts";
/**
 * Services: what the host hands a plugin's `apply` (logger, clock, cwd, UI, session store) and the typed
 * services plugins offer each other (`defineService`, `ServiceKey`, `services.need/maybe/provide`; a
 * plugin declares them in `provides`, `requires` and `optional`).
 */
export * from "./services.ts";
export { deepMerge, type DeepPartial } from "./config/merge.ts";
export { resolveConfig, formatProblems, ALLOW_PROJECT_LINE, type ConfigLayer, type ConfigProblem, type ResolvedConfig } from "./config/resolve.ts";
export type { RemovedKey, RenamedKey, RenamedKeys } from "./config/renamed.ts";
export { loadConfigLayers, agentDirFrom, CONFIG_FILE, CONFIG_MAX_BYTES } from "./config/layers.ts";
export { currentUid, readBoundedFileSync, SAFE_READ_FLAGS, UnsafeFileError, type BoundedReadOptions } from "./safe-file.ts";
export type { CliCommand, CliIO } from "./cli-command.ts";
export type { DoctorCheckContext, DoctorCheckResult, DoctorChecks, DoctorCheckStatus } from "./doctor-check.ts";
export { parseCommandArgs, USAGE_EXIT } from "./cli-args.ts";
export { createGovernor, governorOf, type Governor, type GovernorOptions } from "./host.ts";
export { createExtension, bindGovernor, type ExtensionOptions } from "./pi/extension.ts";
export {
  boundedRecord,
  MAX_CONFIG_ENTRIES,
  MAX_PATH_CHARS,
  MAX_TEXT_CHARS,
  MAX_TOOL_NAME_CHARS,
  pathSchema,
  textSchema,
  toolListSchema,
  toolNameSchema,
} from "./config/bounds.ts";

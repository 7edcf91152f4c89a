/**
 * pi-governor's public API: the pipeline, the plugin contract, observations and errors, config,
 * and the pi adapter. Plugins and presets import from here.
 */
export { STAGE } from "./stages.ts";
export * from "./content.ts";
export * from "./errors.ts";
export * from "./observation.ts";
export { classifyError, tail, type ClassifyContext } from "./classify.ts";
export type { PipelineEvent } from "./events.ts";
export type { TapOptions, TapRecord } from "./hooks.ts";
export { Pipeline, type CallOptions, type SealedTool } from "./pipeline.ts";
export * from "./tool-types.ts";
export { definePlugin, definePreset, type CrossFieldProblem, type GovernorPlugin, type PluginFactory, type PluginSpec, type Preset, type WithEnabled } from "./plugin.ts";
export * from "./services.ts";
export { deepMerge, type DeepPartial } from "./config/merge.ts";
export { resolveConfig, formatProblems, ALLOW_PROJECT_LINE, type ConfigLayer, type ConfigProblem, type IgnoredTrustedKey, type ResolvedConfig } from "./config/resolve.ts";
export { loadConfigLayers, agentDirFrom, CONFIG_FILE } from "./config/layers.ts";
export { createGovernor, governorOf, type Governor, type GovernorOptions } from "./host.ts";
export { createExtension, bindGovernor, type ExtensionOptions } from "./pi/extension.ts";

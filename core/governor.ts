/**
 * What plugins and tools around a governor read of it: the built pipeline, the preset, the resolved
 * config and what went wrong while building. The host builds it (`createGovernor` in host/); a
 * plugin reaches the governor its pipeline belongs to with {@link governorOf}.
 */
import type { Pipeline } from "./pipeline.ts";
import type { GovernorPlugin, Preset } from "./plugin.ts";
import type { GovernorServices, IgnoredTrustedKey, LogRecord, SessionStore, UiBridge } from "./services.ts";

/** Where a layer came from; later kinds override earlier ones. */
export type LayerKind = "global" | "project" | "env";

/** One parsed config source. */
export interface ConfigLayer {
  kind: LayerKind;
  /** File path or env variable name, as problems name it. */
  source: string;
  data: Record<string, unknown>;
}

/** Something wrong with the config: where, which key, and what was expected. */
export interface ConfigProblem {
  source: string;
  /** Dotted key path, e.g. `prune.keepRecentTurns` ("" for the whole file). */
  path: string;
  message: string;
}

/** The outcome: per-plugin config, which sources contributed, and what was rejected. */
export interface ResolvedConfig {
  /** Preset name chosen by config (`preset` key), when any layer set one. */
  preset: string | undefined;
  /** Config per plugin config key, defaults filled in. */
  values: Map<string, Record<string, unknown> & { enabled: boolean }>;
  /** Sources that contributed, in order (`defaults`, then files and env). */
  sources: string[];
  problems: ConfigProblem[];
  /**
   * Trusted keys project files set that were ignored (no `allowProjectSpawnConfig` in the global
   * file), so a plugin can say why its program or path is not the project's (e.g. "bun is not on PATH").
   */
  ignoredTrustedKeys: IgnoredTrustedKey[];
}

/** A built pipeline with its config, plugins and diagnostics. */
export interface Governor {
  readonly pipeline: Pipeline;
  readonly preset: Preset;
  readonly config: ResolvedConfig;
  /**
   * The preset's plugins in preset order. `failed` says why one that should run is not applied;
   * `offBecause` why one enabled in the config is off anyway (a service it needs comes from a plugin that is off).
   */
  readonly plugins: ReadonlyArray<{ plugin: GovernorPlugin<any>; enabled: boolean; failed?: string; offBecause?: string }>;
  /** The order plugins were applied in: providers of services before their users, preset order otherwise. */
  readonly applyOrder: readonly string[];
  /**
   * The host's services. `need` and `maybe` read any provided service here (for tests and tools
   * around the governor); `provide` throws: only a plugin's `apply` provides.
   */
  readonly services: GovernorServices;
  /** Recent log records (newest last, at most 200). */
  readonly logs: readonly LogRecord[];
  /** Config problems and plugin failures, as lines for the user. */
  problems(): string[];
  /**
   * Stages that run degraded since load: the warnings and errors plugins logged while they were
   * applied (an MCP server that did not start, so its tools are missing), as lines for the user.
   */
  degraded(): string[];
  /** Points services at the live session (id, UI and record store). */
  attachSession(sessionId: string, ui: UiBridge, store?: SessionStore): void;
  /** Multi-line text for `/governor status`. */
  statusText(): string;
}

/** Governors by their pipeline, so a plugin's command can describe the governor it runs in. */
const governorsByPipeline = new WeakMap<object, Governor>();

/** The governor `pipeline` belongs to (undefined while its plugins are still being applied). */
export function governorOf(pipeline: object): Governor | undefined {
  return governorsByPipeline.get(pipeline);
}

/** Makes `governor` what {@link governorOf} answers for its pipeline (the host calls it once the governor is built). */
export function registerGovernor(governor: Governor): void {
  governorsByPipeline.set(governor.pipeline, governor);
}

import { PluginError, errorText } from "./errors.ts";
import { loadConfigLayers } from "./config/layers.ts";
import { type ConfigLayer, type ConfigProblem, formatProblems, type ResolvedConfig, resolveConfig } from "./config/resolve.ts";
import { Pipeline } from "./pipeline.ts";
import type { GovernorPlugin, Preset } from "./plugin.ts";
import { type Clock, createLogger, type GovernorServices, type LogRecord, memorySessionStore, type SessionStore, silentUi, systemClock, type UiBridge } from "./services.ts";

/** How to build a governor outside or inside pi. */
export interface GovernorOptions {
  preset: Preset;
  /** Other presets a config file may pick with `"preset": "<name>"`. */
  presets?: readonly Preset[];
  cwd: string;
  agentDir: string;
  env?: Readonly<Record<string, string | undefined>>;
  clock?: Clock;
  /** Config from code, applied last (trusted). */
  overrides?: Record<string, unknown>;
  /** Use these layers instead of reading files and env (tests). */
  layers?: ConfigLayer[];
}

/** A built pipeline with its config, plugins and diagnostics. */
export interface Governor {
  readonly pipeline: Pipeline;
  readonly preset: Preset;
  readonly config: ResolvedConfig;
  readonly plugins: ReadonlyArray<{ plugin: GovernorPlugin<any>; enabled: boolean; failed?: string }>;
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

const LOG_CAPACITY = 200;

/** Governors by their pipeline, so a plugin's command can describe the governor it runs in. */
const governorsByPipeline = new WeakMap<object, Governor>();

/** The governor `pipeline` belongs to (undefined while its plugins are still being applied). */
export function governorOf(pipeline: object): Governor | undefined {
  return governorsByPipeline.get(pipeline);
}

/**
 * Loads config, picks the preset, applies every enabled plugin in preset order and seals the
 * pipeline. A plugin whose apply throws is reported and left out; the others still run.
 */
export async function createGovernor(options: GovernorOptions): Promise<Governor> {
  const env = options.env ?? process.env;
  const loaded = options.layers ? { layers: options.layers, problems: [] as ConfigProblem[] } : loadConfigLayers({ cwd: options.cwd, agentDir: options.agentDir, env });
  const layers = options.overrides ? [...loaded.layers, { kind: "env" as const, source: "code overrides", data: options.overrides }] : loaded.layers;

  let preset = options.preset;
  const extraProblems: ConfigProblem[] = [...loaded.problems];
  const wanted = [...layers].reverse().find((l) => typeof l.data.preset === "string")?.data.preset as string | undefined;
  if (wanted && wanted !== preset.name) {
    const found = options.presets?.find((p) => p.name === wanted);
    if (found) preset = found;
    else extraProblems.push({ source: "config", path: "preset", message: `unknown preset "${wanted}"; known: ${[preset, ...(options.presets ?? [])].map((p) => p.name).join(", ")}. Using "${preset.name}"` });
  }

  const plugins = preset.plugins();
  const otherSections = new Set((options.presets ?? []).flatMap((p) => p.plugins().map((plugin) => plugin.configKey)));
  const config = resolveConfig(plugins, layers, otherSections);
  config.problems.unshift(...extraProblems);

  const logs: LogRecord[] = [];
  const loadWarnings: string[] = [];
  let loading = true;
  const clock = options.clock ?? systemClock;
  const pipeline = new Pipeline({ clock });
  let sessionId = "";
  let ui: UiBridge = silentUi;
  let store: SessionStore = memorySessionStore();
  const logger = createLogger("governor", (record) => {
    logs.push(record);
    if (logs.length > LOG_CAPACITY) logs.shift();
    if (loading && (record.level === "warn" || record.level === "error")) loadWarnings.push(`${record.source}: ${record.message}`);
    pipeline.emit({ type: "log", record });
  });
  const services: GovernorServices = {
    logger,
    clock,
    cwd: options.cwd,
    agentDir: options.agentDir,
    env,
    sessionId: () => sessionId,
    ui: () => ui,
    store: () => store,
    commandRoot: preset.commandRoot ?? "governor",
    ignoredTrustedKeys: config.ignoredTrustedKeys,
  };

  const pluginErrors: string[] = [];
  pipeline.hooks.event.tap({ name: "governor:host", stage: 0 }, (event) => {
    if (event.type === "plugin_error") {
      pluginErrors.push(event.error.message);
      if (pluginErrors.length > 50) pluginErrors.shift();
    }
  });

  const applied: Array<{ plugin: GovernorPlugin<any>; enabled: boolean; failed?: string }> = [];
  for (const plugin of plugins) {
    const pluginConfig = config.values.get(plugin.configKey)!;
    if (!pluginConfig.enabled) {
      applied.push({ plugin, enabled: false });
      continue;
    }
    try {
      await plugin.apply(pipeline, pluginConfig, { ...services, logger: logger.child(plugin.name) });
      applied.push({ plugin, enabled: true });
    } catch (error) {
      const failure = new PluginError(plugin.name, "apply", error);
      applied.push({ plugin, enabled: false, failed: errorText(error) });
      pluginErrors.push(failure.message);
    }
  }
  pipeline.seal();
  loading = false;

  const problems = () => [...formatProblems(config.problems), ...pluginErrors];
  const governor: Governor = {
    pipeline,
    preset,
    config,
    plugins: applied,
    services,
    logs,
    problems,
    degraded: () => [...loadWarnings],
    attachSession(id, bridge, sessionStore) {
      sessionId = id;
      ui = bridge;
      if (sessionStore) store = sessionStore;
    },
    statusText() {
      const lines = [`pi-governor: preset "${preset.name}"`, "Stages in run order:"];
      for (const [hook, taps] of Object.entries(pipeline.describe())) {
        const own = taps.filter((t) => t.name !== "governor:host");
        if (own.length) lines.push(`  ${hook}: ${own.map((t) => `${t.name}@${t.stage}`).join(" > ")}`);
      }
      lines.push("Plugins:");
      for (const a of applied) lines.push(`  ${a.plugin.name} [${a.plugin.configKey}]: ${a.failed ? `FAILED (${a.failed})` : a.enabled ? "on" : "off"}`);
      const tools = [...pipeline.tools.keys()];
      lines.push(`Tools: ${tools.length ? tools.join(", ") : "none"}`);
      lines.push(`Config sources: ${config.sources.join(" <- ")}`);
      const found = problems();
      lines.push(found.length ? `Problems (${found.length}):` : "Problems: none");
      for (const p of found) lines.push(`  - ${p}`);
      if (loadWarnings.length) lines.push(`Degraded at load (${loadWarnings.length}):`, ...loadWarnings.map((w) => `  - ${w}`));
      return lines.join("\n");
    },
  };
  governorsByPipeline.set(pipeline, governor);
  return governor;
}

import { PluginError } from "../core/errors.ts";
import { CONFIG_FILE, loadConfigLayers } from "./config/layers.ts";
import { join } from "node:path";
import { chosenPreset, formatProblems, resolveConfig } from "./config/resolve.ts";
import { type ConfigLayer, type ConfigProblem, type Governor, registerGovernor } from "../core/governor.ts";
import { Pipeline } from "../core/pipeline.ts";
import type { Preset } from "../core/plugin.ts";
import { type Clock, createLogger, type LogRecord, memorySessionStore, type SessionStore, silentUi, systemClock, type UiBridge } from "../core/services.ts";
import { applyPlugins } from "./apply-plugins.ts";
import { loadWarningLines } from "./load-warnings.ts";
import { ServiceRegistry } from "./service-registry.ts";
import { statusText } from "./status-text.ts";

/**
 * How to build a governor outside or inside pi (`createExtension` fills these in from pi's session).
 * In a test: `createGovernor({ preset, cwd: dir, agentDir: dir, layers: [] })` keeps the developer's
 * own config files and environment out.
 */
export interface GovernorOptions {
  /** The preset to run, unless a config layer names another with `"preset": "<name>"`. */
  preset: Preset;
  /** Other presets a config file may pick with `"preset": "<name>"`. Default: none (an unknown name is a config problem and `preset` runs). */
  presets?: readonly Preset[];
  /** The project folder: where `.pi/pi-governor.json` is read and what plugins see as `services.cwd`. */
  cwd: string;
  /**
   * pi's agent folder: the global `pi-governor.json` is read here, and the execution log
   * (`pi-governor/executions.db`) and, when it is not `~/.pi/agent`, the blob cache live under it.
   * Use `agentDirFrom(process.env)` for pi's own (PI_CODING_AGENT_DIR or ~/.pi/agent).
   */
  agentDir: string;
  /** The environment plugins see (`services.env`) and `PI_GOVERNOR_CONFIG` is read from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Time source for every plugin (milliseconds; inject a fake in tests). Default: the real clock, timers unref'd. */
  clock?: Clock;
  /** Config from code, applied last, over every file (trusted, like the global file): `{ retry: { enabled: false } }`. */
  overrides?: Record<string, unknown>;
  /**
   * Use these config layers instead of reading the files and `PI_GOVERNOR_CONFIG` (tests; `[]` for
   * defaults only). Each is `{ kind: "global" | "project" | "env", source, data }`; later ones win.
   */
  layers?: ConfigLayer[];
}

const LOG_CAPACITY = 200;

/**
 * Loads config, picks the preset, applies every enabled plugin (providers of a service before the
 * plugins that declare they need or use it, preset order otherwise) and seals the pipeline. A plugin
 * whose apply throws, whose required service has no provider, or that is in a service cycle is
 * reported and left out; the others still run.
 */
export async function createGovernor(options: GovernorOptions): Promise<Governor> {
  const env = options.env ?? process.env;
  const { preset, plugins, config } = presetAndConfig(options, env);
  const logs: LogRecord[] = [];
  const loadWarnings: LogRecord[] = [];
  let loading = true;
  const clock = options.clock ?? systemClock;
  const pipeline = new Pipeline({ clock });
  let sessionId = "";
  let ui: UiBridge = silentUi;
  let store: SessionStore = memorySessionStore();
  const logger = createLogger("governor", (record) => {
    logs.push(record);
    if (logs.length > LOG_CAPACITY) logs.shift();
    if (loading && (record.level === "warn" || record.level === "error")) loadWarnings.push(record);
    pipeline.emit({ type: "log", record });
  });
  const registry = new ServiceRegistry(
    {
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
    },
    preset.name,
  );

  const pluginErrors: string[] = [];
  pipeline.hooks.event.tap({ name: "governor:host", stage: 0 }, (event) => {
    if (event.type === "plugin_error") {
      pluginErrors.push(event.error.message);
      if (pluginErrors.length > 50) pluginErrors.shift();
    }
  });
  const applied = await applyPlugins(pipeline, plugins, config, registry, { presetName: preset.name, logger, failed: (line) => pluginErrors.push(line) });
  pipeline.seal();
  // What only the whole preset shows (a rule naming no tool of any plugin): warnings at load.
  for (const { owner, check } of pipeline.loadChecks) {
    try {
      for (const line of check()) logger.child(owner).warn(line);
    } catch (error) {
      pluginErrors.push(new PluginError(owner, "loadCheck", error).message);
    }
  }
  loading = false;

  const governor: Governor = {
    pipeline,
    preset,
    config,
    plugins: applied.plugins,
    applyOrder: applied.applyOrder,
    services: registry.services,
    logs,
    problems: () => [...formatProblems(config.problems), ...pluginErrors],
    degraded: () => loadWarningLines(loadWarnings),
    attachSession(id, bridge, sessionStore) {
      sessionId = id;
      ui = bridge;
      if (sessionStore) store = sessionStore;
    },
    statusText: () => statusText({ ...governor, providers: applied.plan.providers }),
  };
  registerGovernor(governor);
  return governor;
}

/**
 * The config layers (read, or `options.layers`, then the code overrides), the preset a layer picks
 * (an unknown name is a problem and `options.preset` runs), its plugins, and their resolved config.
 */
function presetAndConfig(options: GovernorOptions, env: Readonly<Record<string, string | undefined>>) {
  const loaded = options.layers
    ? { layers: options.layers, problems: [] as ConfigProblem[] }
    : loadConfigLayers({ cwd: options.cwd, agentDir: options.agentDir, env });
  const layers = options.overrides ? [...loaded.layers, { kind: "env" as const, source: "code overrides", data: options.overrides }] : loaded.layers;

  let preset = options.preset;
  const extraProblems: ConfigProblem[] = [...loaded.problems];
  const wanted = chosenPreset(layers);
  if (wanted && wanted !== preset.name) {
    const found = options.presets?.find((p) => p.name === wanted);
    if (found) preset = found;
    else
      extraProblems.push({
        source: "config",
        path: "preset",
        message: `unknown preset "${wanted}"; known: ${[preset, ...(options.presets ?? [])].map((p) => p.name).join(", ")}. Using "${preset.name}"`,
      });
  }

  const plugins = preset.plugins();
  const otherSections = new Set((options.presets ?? []).flatMap((p) => p.plugins().map((plugin) => plugin.configKey)));
  const config = resolveConfig(plugins, layers, otherSections, join(options.agentDir, CONFIG_FILE));
  config.problems.unshift(...extraProblems);
  return { preset, plugins, config };
}

import { PluginError, errorText } from "../core/errors.ts";
import { CONFIG_FILE, loadConfigLayers } from "./config/layers.ts";
import { join } from "node:path";
import { formatProblems, resolveConfig } from "./config/resolve.ts";
import { type ConfigLayer, type ConfigProblem, type Governor, registerGovernor } from "../core/governor.ts";
import { Pipeline } from "../core/pipeline.ts";
import type { GovernorPlugin, Preset } from "../core/plugin.ts";
import { planApplyOrder } from "./plugin-order.ts";
import {
  type Clock,
  createLogger,
  type GovernorServices,
  type LogRecord,
  memorySessionStore,
  type ServiceKey,
  type SessionStore,
  silentUi,
  systemClock,
  type UiBridge,
} from "../core/services.ts";
import { fixedOverhead, formatFixedOverhead } from "./tool-overhead.ts";
import { loadWarningLines } from "./load-warnings.ts";

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
  const loaded = options.layers
    ? { layers: options.layers, problems: [] as ConfigProblem[] }
    : loadConfigLayers({ cwd: options.cwd, agentDir: options.agentDir, env });
  const layers = options.overrides ? [...loaded.layers, { kind: "env" as const, source: "code overrides", data: options.overrides }] : loaded.layers;

  let preset = options.preset;
  const extraProblems: ConfigProblem[] = [...loaded.problems];
  const wanted = [...layers].reverse().find((l) => typeof l.data.preset === "string")?.data.preset as string | undefined;
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
  const provided = new Map<string, { value: unknown; by: string }>();
  const read = (key: ServiceKey<any>) => provided.get(key.name)?.value;
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
    need: <T>(key: ServiceKey<T>): T => {
      if (!provided.has(key.name)) throw new Error(`service "${key.name}" is not provided in this governor (preset "${preset.name}")`);
      return read(key) as T;
    },
    maybe: <T>(key: ServiceKey<T>) => read(key) as T | undefined,
    provide: (key) => {
      throw new Error(`service "${key.name}" can only be provided by a plugin's apply (list it in the plugin's provides)`);
    },
  };
  /** The services one plugin gets: its own logger, and only the services it declared. */
  const servicesFor = (plugin: GovernorPlugin<any>): GovernorServices => {
    const declared = (keys: ReadonlyArray<ServiceKey<any>>, key: ServiceKey<any>) => keys.some((k) => k.name === key.name);
    const undeclared = (key: ServiceKey<any>, list: string) =>
      new Error(`plugin "${plugin.name}" uses service "${key.name}" without declaring it; add it to the plugin's ${list}`);
    return {
      ...services,
      logger: logger.child(plugin.name),
      need: <T>(key: ServiceKey<T>): T => {
        if (!declared(plugin.requires, key)) throw undeclared(key, "requires");
        if (!provided.has(key.name)) throw new Error(`plugin "${plugin.name}" needs service "${key.name}", which is not provided`);
        return read(key) as T;
      },
      maybe: <T>(key: ServiceKey<T>) => {
        if (!declared(plugin.requires, key) && !declared(plugin.optional, key)) throw undeclared(key, "optional (or requires)");
        return read(key) as T | undefined;
      },
      provide: (key, value) => {
        if (!declared(plugin.provides, key)) throw undeclared(key, "provides");
        const other = provided.get(key.name);
        if (other && other.by !== plugin.name) throw new Error(`service "${key.name}" is provided by ${other.by} already`);
        provided.set(key.name, { value, by: plugin.name });
      },
    };
  };

  const pluginErrors: string[] = [];
  pipeline.hooks.event.tap({ name: "governor:host", stage: 0 }, (event) => {
    if (event.type === "plugin_error") {
      pluginErrors.push(event.error.message);
      if (pluginErrors.length > 50) pluginErrors.shift();
    }
  });

  const entries = plugins.map((plugin) => ({ plugin, enabled: config.values.get(plugin.configKey)!.enabled === true }));
  const plan = planApplyOrder(entries, preset.name);
  const failures = new Map(plan.failed);
  for (const [plugin, why] of plan.failed) pluginErrors.push(`plugin "${plugin.name}" is not applied: ${why}`);
  for (const [plugin, why] of plan.off) logger.info(`${plugin.name} is off: it ${why}`);
  for (const plugin of plan.order) {
    // A provider that failed while applying leaves its dependents without the service.
    const lost = plugin.requires.find((key) => !provided.has(key.name));
    if (lost) {
      const provider = plan.providers.get(lost.name)!;
      const why = `it needs service "${lost.name}" from ${provider.name}, which failed to apply`;
      failures.set(plugin, why);
      pluginErrors.push(`plugin "${plugin.name}" is not applied: ${why}`);
      continue;
    }
    try {
      await plugin.apply(pipeline, config.values.get(plugin.configKey)!, servicesFor(plugin));
      const unprovided = plugin.provides.filter((key) => provided.get(key.name)?.by !== plugin.name);
      if (unprovided.length)
        throw new Error(`it declares provides ${unprovided.map((k) => `"${k.name}"`).join(", ")} but its apply did not call services.provide for it`);
    } catch (error) {
      for (const [name, entry] of provided) if (entry.by === plugin.name) provided.delete(name);
      failures.set(plugin, errorText(error));
      pluginErrors.push(new PluginError(plugin.name, "apply", error).message);
    }
  }
  const applied = entries.map(({ plugin, enabled }) =>
    failures.has(plugin)
      ? { plugin, enabled: false, failed: failures.get(plugin)! }
      : plan.off.has(plugin)
        ? { plugin, enabled: false, offBecause: plan.off.get(plugin)! }
        : { plugin, enabled },
  );
  const applyOrder = plan.order.filter((p) => !failures.has(p)).map((p) => p.name);
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

  const problems = () => [...formatProblems(config.problems), ...pluginErrors];
  const governor: Governor = {
    pipeline,
    preset,
    config,
    plugins: applied,
    applyOrder,
    services,
    logs,
    problems,
    degraded: () => loadWarningLines(loadWarnings),
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
      for (const a of applied)
        lines.push(
          `  ${a.plugin.name} [${a.plugin.configKey}]: ${a.failed ? `FAILED (${a.failed})` : a.offBecause ? `off (${a.offBecause})` : a.enabled ? "on" : "off"}${serviceNote(a.plugin, plan.providers)}`,
        );
      const presetOrder = applied.filter((a) => a.enabled).map((a) => a.plugin.name);
      if (applyOrder.join() !== presetOrder.join()) lines.push(`Apply order (providers first): ${applyOrder.join(" > ")}`);
      const tools = [...pipeline.tools.keys()];
      lines.push(`Tools: ${tools.length ? tools.join(", ") : "none"}`);
      lines.push(formatFixedOverhead(fixedOverhead([...pipeline.tools.values()].map((t) => t.definition))));
      for (const section of pipeline.statusSections) {
        let body: string[];
        try {
          body = section.lines();
        } catch (error) {
          body = [`(failed: ${errorText(error)})`];
        }
        lines.push(`${section.title}:`, ...body.map((l) => `  ${l}`));
      }
      lines.push(`Config sources: ${config.sources.join(" <- ")}`);
      const found = problems();
      lines.push(found.length ? `Problems (${found.length}):` : "Problems: none");
      for (const p of found) lines.push(`  - ${p}`);
      const degraded = loadWarningLines(loadWarnings);
      if (degraded.length) lines.push(`Degraded at load (${degraded.length}):`, ...degraded.map((w) => `  - ${w}`));
      return lines.join("\n");
    },
  };
  registerGovernor(governor);
  return governor;
}

/** ` · provides "x" · needs "y" (governor:p)`: a plugin's declared services for the status text. */
function serviceNote(plugin: GovernorPlugin<any>, providers: ReadonlyMap<string, GovernorPlugin<any>>): string {
  const from = (key: ServiceKey<any>) => `"${key.name}"${providers.get(key.name) ? ` (${providers.get(key.name)!.name})` : ""}`;
  const parts: string[] = [];
  if (plugin.provides.length) parts.push(`provides ${plugin.provides.map((k) => `"${k.name}"`).join(", ")}`);
  if (plugin.requires.length) parts.push(`needs ${plugin.requires.map(from).join(", ")}`);
  if (plugin.optional.length) parts.push(`uses ${plugin.optional.map(from).join(", ")}`);
  return parts.map((p) => ` · ${p}`).join("");
}

/**
 * Applying a preset's plugins to a pipeline: providers of a service before the plugins that need or
 * use it (plugin-order.ts), each plugin's apply isolated. A plugin whose apply throws, whose required
 * service has no provider (or a provider that failed), or that is in a service cycle is left out and
 * said in words a user can act on; the others still run.
 */
import { errorText, PluginError } from "../core/errors.ts";
import type { Governor, ResolvedConfig } from "../core/governor.ts";
import type { Pipeline } from "../core/pipeline.ts";
import type { GovernorPlugin } from "../core/plugin.ts";
import type { Logger } from "../core/services.ts";
import { type ApplyPlan, planApplyOrder } from "./plugin-order.ts";
import type { ServiceRegistry } from "./service-registry.ts";

/** What applying the plugins came to. */
export interface AppliedPlugins {
  /** The preset's plugins in preset order, as {@link Governor.plugins} lists them. */
  plugins: Governor["plugins"];
  /** Names of the plugins applied, in the order they were applied. */
  applyOrder: string[];
  /** The plan the order came from (its `providers` name who provides each service). */
  plan: ApplyPlan;
}

/**
 * Applies every enabled plugin of `plugins` to `pipeline` with its section of `config`. Failures go
 * to `failed` (one line each, as `/governor status` lists them); the pipeline is not sealed here.
 */
export async function applyPlugins(
  pipeline: Pipeline,
  plugins: readonly GovernorPlugin<any>[],
  config: ResolvedConfig,
  registry: ServiceRegistry,
  context: { presetName: string; logger: Logger; failed: (line: string) => void },
): Promise<AppliedPlugins> {
  const entries = plugins.map((plugin) => ({ plugin, enabled: config.values.get(plugin.configKey)!.enabled === true }));
  const plan = planApplyOrder(entries, context.presetName);
  const failures = new Map(plan.failed);
  for (const [plugin, why] of plan.failed) context.failed(`plugin "${plugin.name}" is not applied: ${why}`);
  for (const [plugin, why] of plan.off) context.logger.info(`${plugin.name} is off: it ${why}`);
  for (const plugin of plan.order) {
    // A provider that failed while applying leaves its dependents without the service.
    const lost = plugin.requires.find((key) => !registry.has(key.name));
    if (lost) {
      const why = `it needs service "${lost.name}" from ${plan.providers.get(lost.name)!.name}, which failed to apply`;
      failures.set(plugin, why);
      context.failed(`plugin "${plugin.name}" is not applied: ${why}`);
      continue;
    }
    try {
      await plugin.apply(pipeline, config.values.get(plugin.configKey)!, registry.servicesFor(plugin, context.logger.child(plugin.name)));
      const unprovided = plugin.provides.filter((key) => registry.providerOf(key.name) !== plugin.name);
      if (unprovided.length)
        throw new Error(`it declares provides ${unprovided.map((k) => `"${k.name}"`).join(", ")} but its apply did not call services.provide for it`);
    } catch (error) {
      registry.withdraw(plugin);
      failures.set(plugin, errorText(error));
      context.failed(new PluginError(plugin.name, "apply", error).message);
    }
  }
  return {
    plugins: entries.map(({ plugin, enabled }) =>
      failures.has(plugin)
        ? { plugin, enabled: false, failed: failures.get(plugin)! }
        : plan.off.has(plugin)
          ? { plugin, enabled: false, offBecause: plan.off.get(plugin)! }
          : { plugin, enabled },
    ),
    applyOrder: plan.order.filter((p) => !failures.has(p)).map((p) => p.name),
    plan,
  };
}

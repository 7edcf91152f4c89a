/**
 * The apply order of a preset's plugins from their declared services: every provider before the
 * plugins that need or use its service, otherwise the preset's order (a stable topological sort).
 * What cannot be wired is said per plugin, in words a user can act on. A plugin is left out, as a
 * failure the user is told about, for:
 * - a required service that no plugin in the preset provides;
 * - a service two enabled plugins provide (the later one is left out);
 * - a cycle (a needs b's service, b needs a's), with the path.
 * A plugin whose required service comes from a plugin the config turned off is off with it (a note in
 * `/governor status`, not a failure): turning kota off turns autoContext off, without a warning in
 * every session.
 */
import type { GovernorPlugin } from "../core/plugin.ts";
import type { ServiceKey } from "../core/services.ts";

/** One plugin of the preset with its config switch. */
export interface PluginEntry {
  plugin: GovernorPlugin<any>;
  enabled: boolean;
}

/** The outcome of {@link planApplyOrder}. */
export interface ApplyPlan {
  /** Enabled plugins that can be applied, providers first, preset order otherwise. */
  order: GovernorPlugin<any>[];
  /** Enabled plugins left out, with why and what would fix it (a plugin failure for the user). */
  failed: Map<GovernorPlugin<any>, string>;
  /** Enabled plugins off because a provider they need is off in the config, with why. */
  off: Map<GovernorPlugin<any>, string>;
  /** For each service name, the enabled plugin that provides it. */
  providers: Map<string, GovernorPlugin<any>>;
}

/** Plans the apply order; see the module comment. */
export function planApplyOrder(entries: readonly PluginEntry[], presetName: string): ApplyPlan {
  const failed = new Map<GovernorPlugin<any>, string>();
  const off = new Map<GovernorPlugin<any>, string>();
  const providers = new Map<string, GovernorPlugin<any>>();
  const offProviders = new Map<string, GovernorPlugin<any>[]>();
  for (const { plugin, enabled } of entries) {
    for (const key of plugin.provides) {
      if (!enabled) {
        (offProviders.get(key.name) ?? offProviders.set(key.name, []).get(key.name)!).push(plugin);
        continue;
      }
      const first = providers.get(key.name);
      if (first && first !== plugin)
        failed.set(
          plugin,
          `it provides service "${key.name}", which ${first.name} (earlier in preset "${presetName}") provides already; remove one of them from the preset or turn one off`,
        );
      else providers.set(key.name, plugin);
    }
  }

  const enabled = entries.filter((e) => e.enabled && !failed.has(e.plugin)).map((e) => e.plugin);
  for (const plugin of enabled) {
    const missing = plugin.requires.find((key) => !providers.has(key.name));
    if (!missing) continue;
    const offOnes = offProviders.get(missing.name) ?? [];
    if (offOnes.length)
      off.set(plugin, `needs service "${missing.name}" from ${offOnes.map((p) => `${p.name} ("${p.configKey}")`).join(" or ")}, which is off`);
    else failed.set(plugin, missingText(plugin, missing, presetName));
  }

  // A plugin whose required provider is left out is left out too (to a fixpoint: chains of needs).
  let changed = true;
  while (changed) {
    changed = false;
    for (const plugin of enabled) {
      if (failed.has(plugin) || off.has(plugin)) continue;
      const key = plugin.requires.find((k) => failed.has(providers.get(k.name)!) || off.has(providers.get(k.name)!));
      if (!key) continue;
      const provider = providers.get(key.name)!;
      if (off.has(provider)) off.set(plugin, `needs service "${key.name}" from ${provider.name}, which is off (it ${off.get(provider)})`);
      else failed.set(plugin, `it needs service "${key.name}" from ${provider.name}, which is not applied (${provider.name}: ${failed.get(provider)})`);
      changed = true;
    }
  }

  // Kahn's algorithm, always taking the earliest plugin in preset order whose providers are placed.
  const candidates = enabled.filter((p) => !failed.has(p) && !off.has(p));
  const dependsOn = new Map(candidates.map((p) => [p, providersOf(p, providers).filter((d) => d !== p && candidates.includes(d))] as const));
  const order: GovernorPlugin<any>[] = [];
  const placed = new Set<GovernorPlugin<any>>();
  for (;;) {
    const ready = candidates.find((p) => !placed.has(p) && dependsOn.get(p)!.every((d) => placed.has(d)));
    if (!ready) break;
    order.push(ready);
    placed.add(ready);
  }
  for (const plugin of candidates) {
    if (!placed.has(plugin)) failed.set(plugin, `${cycleText(plugin, dependsOn, providers, placed)}; remove one of these dependencies or one of the plugins`);
  }
  return { order, failed, off, providers };
}

/** The providers a plugin waits for: those of its required and optional services. */
function providersOf(plugin: GovernorPlugin<any>, providers: Map<string, GovernorPlugin<any>>): GovernorPlugin<any>[] {
  const out: GovernorPlugin<any>[] = [];
  for (const key of [...plugin.requires, ...plugin.optional]) {
    const p = providers.get(key.name);
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

function missingText(plugin: GovernorPlugin<any>, key: ServiceKey<any>, presetName: string): string {
  const skip = `or set "${plugin.configKey}": { "enabled": false }`;
  const who = key.providedBy ? `add ${key.providedBy} to the preset` : "add a plugin that provides it to the preset";
  return `it needs service "${key.name}", which no plugin in preset "${presetName}" provides; ${who} ${skip}`;
}

/** The cycle reached from `start` among the plugins not placed: `a needs "x" from b, which needs "y" from a`. */
function cycleText(
  start: GovernorPlugin<any>,
  dependsOn: Map<GovernorPlugin<any>, GovernorPlugin<any>[]>,
  providers: Map<string, GovernorPlugin<any>>,
  placed: Set<GovernorPlugin<any>>,
): string {
  const path: GovernorPlugin<any>[] = [start];
  for (;;) {
    const at = path[path.length - 1]!;
    // Every unplaced plugin waits for at least one unplaced provider, so this walk always closes a loop.
    const next = dependsOn.get(at)!.find((d) => !placed.has(d))!;
    const seen = path.indexOf(next);
    if (seen < 0) {
      path.push(next);
      continue;
    }
    const loop = [...path.slice(seen), next];
    const text = loop
      .slice(1)
      .map((p, i) => `${i === 0 ? "" : "which "}needs ${serviceBetween(loop[i]!, p, providers)} from ${p.name}`)
      .join(", ");
    const cycle = `${loop[0]!.name} ${text}`;
    return seen === 0 ? `its services form a cycle: ${cycle}` : `it waits for plugins whose services form a cycle: ${cycle}`;
  }
}

/** The service `user` takes from `provider`, quoted. */
function serviceBetween(user: GovernorPlugin<any>, provider: GovernorPlugin<any>, providers: Map<string, GovernorPlugin<any>>): string {
  const key = [...user.requires, ...user.optional].find((k) => providers.get(k.name) === provider);
  return `"${key?.name}"`;
}

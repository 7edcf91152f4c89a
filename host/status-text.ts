/**
 * The text of `/governor status`: the stages in run order, each plugin with its state and declared
 * services, the apply order when services changed it, the tools and what they add to every request,
 * the plugins' own sections, the config sources, the problems and what runs degraded since load.
 */
import { errorText } from "../core/errors.ts";
import type { Governor } from "../core/governor.ts";
import type { GovernorPlugin } from "../core/plugin.ts";
import type { ServiceKey } from "../core/services.ts";
import { fixedOverhead, formatFixedOverhead } from "./tool-overhead.ts";

/** What the status text reads of a governor, and who provides each service (for the plugin lines). */
export type StatusView = Pick<Governor, "pipeline" | "preset" | "config" | "plugins" | "applyOrder" | "problems" | "degraded"> & {
  providers: ReadonlyMap<string, GovernorPlugin<any>>;
};

/** Multi-line text for `/governor status`. */
export function statusText(view: StatusView): string {
  const { pipeline } = view;
  const lines = [`pi-governor: preset "${view.preset.name}"`, "Stages in run order:"];
  for (const [hook, taps] of Object.entries(pipeline.describe())) {
    const own = taps.filter((t) => t.name !== "governor:host");
    if (own.length) lines.push(`  ${hook}: ${own.map((t) => `${t.name}@${t.stage}`).join(" > ")}`);
  }
  lines.push("Plugins:");
  for (const a of view.plugins)
    lines.push(
      `  ${a.plugin.name} [${a.plugin.configKey}]: ${a.failed ? `FAILED (${a.failed})` : a.offBecause ? `off (${a.offBecause})` : a.enabled ? "on" : "off"}${serviceNote(a.plugin, view.providers)}`,
    );
  const presetOrder = view.plugins.filter((a) => a.enabled).map((a) => a.plugin.name);
  if (view.applyOrder.join() !== presetOrder.join()) lines.push(`Apply order (providers first): ${view.applyOrder.join(" > ")}`);
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
  lines.push(`Config sources: ${view.config.sources.join(" <- ")}`);
  const found = view.problems();
  lines.push(found.length ? `Problems (${found.length}):` : "Problems: none");
  for (const p of found) lines.push(`  - ${p}`);
  const degraded = view.degraded();
  if (degraded.length) lines.push(`Degraded at load (${degraded.length}):`, ...degraded.map((w) => `  - ${w}`));
  return lines.join("\n");
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

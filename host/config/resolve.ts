import { z } from "zod";
import type { GovernorPlugin } from "../../core/plugin.ts";
import type { ConfigLayer, ConfigProblem, ResolvedConfig } from "../../core/governor.ts";
import type { IgnoredTrustedKey } from "../../core/services.ts";
import { additiveList, droppedMessage, type ListContribution } from "./additive.ts";
import { deepMerge, isPlainObject, withoutUnsafeKeys } from "../../core/config/merge.ts";
import { upgradeLayer } from "../../core/config/renamed.ts";
import { parseSalvaging } from "./salvage.ts";
import { visible } from "../../lib/visible/index.ts";
import { didYouMean } from "../../lib/did-you-mean/index.ts";

export type { ConfigLayer, ConfigProblem, LayerKind, ResolvedConfig } from "../../core/governor.ts";

import { ALLOW_PROJECT_LINE } from "../../lib/config/index.ts";

export { ALLOW_PROJECT_LINE };

/** Why a project file's `preset` is not in force. */
const PROJECT_PRESET_IGNORED =
  "ignored: a project config may not choose the preset, which decides what programs run and what is redacted; the preset of your global config (or the default) stays";

/**
 * The preset name the config layers choose: the last one a trusted source sets (global file,
 * environment, code); a project file's only when the global file sets `allowProjectSpawnConfig`.
 * Undefined when none does (the extension's own preset runs). {@link resolveConfig} reports a
 * project's ignored choice.
 */
export function chosenPreset(layers: readonly ConfigLayer[]): string | undefined {
  const allowProjectSpawn = layers.some((l) => l.kind === "global" && l.data.allowProjectSpawnConfig === true);
  const chooser = [...layers].reverse().find((l) => typeof l.data.preset === "string" && l.data.preset && (l.kind !== "project" || allowProjectSpawn));
  return chooser?.data.preset as string | undefined;
}

/** Top-level keys that are not plugin sections. */
export const META_KEYS = ["$schema", "preset", "allowProjectSpawnConfig"] as const;

const metaSchema = z
  .object({
    $schema: z.string().max(4_096).optional(),
    preset: z.string().min(1).max(64).optional(),
    allowProjectSpawnConfig: z.boolean().optional(),
  })
  .strict();

/** Makes every field optional at every depth of nested objects (zod 4 has no deepPartial). */
export function deepPartial(schema: z.ZodObject): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    shape[key] = (field instanceof z.ZodObject ? deepPartial(field) : field).optional();
  }
  return z.object(shape).strict();
}

function problemsOf(source: string, prefix: string, error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    if (keys.length) {
      return {
        source,
        path: keys.map((k) => (path ? `${path}.${k}` : k)).join(", "),
        message: `unknown key${keys.length > 1 ? "s" : ""}; check the spelling (see docs/config.md)`,
      };
    }
    return { source, path, message: issue.message };
  });
}

/**
 * Validates each layer against the plugins' schemas and drops each invalid key only (naming file, key
 * path, value and what is allowed); ignores trusted keys in project files unless the global config
 * allows them (listing them in `ignoredTrustedKeys`); merges defaults <- global <- project <- env,
 * except the plugins' additive lists, whose entries add up (a project can only add: see
 * additive.ts); then runs each plugin's cross-key rules. Never throws for bad config.
 */
export function resolveConfig(
  plugins: readonly GovernorPlugin<any>[],
  layers: readonly ConfigLayer[],
  /** Sections of other presets' plugins: a shared global file may hold them, so they are not problems. */
  otherSections: ReadonlySet<string> = new Set(),
  /** The user's global config file, as problems name it (under PI_CODING_AGENT_DIR when set). */
  globalFile = "~/.pi/agent/pi-governor.json",
): ResolvedConfig {
  const run = new LayerMerge(plugins, layers, otherSections, globalFile);
  for (const layer of layers) run.addLayer(layer);
  const trustedLists = run.mergeAdditiveLists();
  const values = new Map<string, Record<string, unknown> & { enabled: boolean }>();
  for (const plugin of plugins) values.set(plugin.configKey, run.valueOf(plugin, trustedLists));
  return { preset: run.preset, values, sources: run.sources, problems: run.problems, ignoredTrustedKeys: run.ignoredTrustedKeys };
}

/** One {@link resolveConfig}: the layers merged so far, what they were said to break, and who set what. */
class LayerMerge {
  readonly problems: ConfigProblem[] = [];
  readonly sources = ["defaults"];
  readonly ignoredTrustedKeys: IgnoredTrustedKey[] = [];
  preset: string | undefined;
  private merged: Record<string, unknown> = {};
  private readonly byKey: Map<string, GovernorPlugin<any>>;
  private readonly partials: Map<string, z.ZodObject>;
  private readonly renamedBySection: Map<string, NonNullable<GovernorPlugin<any>["renamedKeys"]>>;
  private readonly allowProjectSpawn: boolean;
  /** Which layer last set each `section.key`, for cross-key reports. */
  private readonly setBy = new Map<string, string>();
  /** What each source set of each additive list, by `section.key`. */
  private readonly listsBy = new Map<string, ListContribution[]>();

  constructor(
    private readonly plugins: readonly GovernorPlugin<any>[],
    private readonly layers: readonly ConfigLayer[],
    private readonly otherSections: ReadonlySet<string>,
    private readonly globalFile: string,
  ) {
    this.byKey = new Map(plugins.map((p) => [p.configKey, p]));
    this.partials = new Map(plugins.map((p) => [p.configKey, deepPartial(p.schema)]));
    this.allowProjectSpawn = layers.some((l) => l.kind === "global" && l.data.allowProjectSpawnConfig === true);
    this.renamedBySection = new Map(plugins.filter((p) => p.renamedKeys && Object.keys(p.renamedKeys).length).map((p) => [p.configKey, p.renamedKeys!]));
  }

  /** Each section as the trusted sources alone set it, for keys whose trust depends on other keys. */
  private trustedView(plugin: GovernorPlugin<any>): Record<string, unknown> {
    let view: Record<string, unknown> = { ...plugin.defaults };
    for (const l of this.layers)
      if (l.kind !== "project" && isPlainObject(l.data[plugin.configKey]))
        view = deepMerge(view, withoutUnsafeKeys(l.data[plugin.configKey] as Record<string, unknown>));
    return view;
  }

  addLayer(layer: ConfigLayer): void {
    const accepted: Record<string, unknown> = {};
    let contributed = false;
    // Old spellings first, so a file written for an older release still applies (a key may move to
    // another section: a part of a plugin that became its own plugin).
    const upgraded = upgradeLayer(withoutUnsafeKeys(layer.data), this.renamedBySection);
    for (const r of upgraded.renamed) this.problems.push({ source: layer.source, path: r.path, message: r.message });
    for (const [key, value] of Object.entries(upgraded.data)) {
      if ((META_KEYS as readonly string[]).includes(key)) continue;
      const section = this.acceptSection(layer, key, value);
      if (!section) continue;
      accepted[key] = section;
      contributed = true;
    }
    if (this.readMeta(layer)) contributed = true;
    this.merged = deepMerge(this.merged, accepted);
    if (contributed) this.sources.push(layer.source);
  }

  /** One section of a layer as it is accepted: bad values and (from a project) trusted keys left out. */
  private acceptSection(layer: ConfigLayer, key: string, value: unknown): Record<string, unknown> | undefined {
    const plugin = this.byKey.get(key);
    if (!plugin && this.otherSections.has(key)) return undefined;
    if (!plugin) {
      this.problems.push({
        source: layer.source,
        path: key,
        message: `unknown section${didYouMean(key, [...this.byKey.keys()])}; known: ${[...this.byKey.keys()].join(", ")}`,
      });
      return undefined;
    }
    // A bad value drops only its key (at any depth); the section's other keys still apply.
    const parsed = parseSalvaging(this.partials.get(key)!, value);
    for (const issue of parsed.issues) this.problems.push({ source: layer.source, path: [key, issue.path].filter(Boolean).join("."), message: issue.message });
    if (!parsed.data) return undefined; // not an object at all: earlier layers stay in force
    const section = { ...parsed.data };
    if (layer.kind === "project" && !this.allowProjectSpawn) {
      for (const trusted of new Set([...plugin.trustedKeys, ...(plugin.trustedKeysWhen?.(this.trustedView(plugin)) ?? [])])) {
        if (trusted in section) {
          delete section[trusted];
          this.ignoredTrustedKeys.push({ source: layer.source, section: key, key: trusted });
          this.problems.push({
            source: layer.source,
            path: `${key}.${trusted}`,
            message: `ignored: a project config may not choose what program runs, where files are written, what leaves the machine, how long shared data is kept or loosen a policy. To allow it, add ${ALLOW_PROJECT_LINE} to your global config (${this.globalFile})`,
          });
        }
      }
    }
    for (const k of plugin.additiveKeys ?? []) {
      if (!Array.isArray(section[k])) continue;
      const id = `${key}.${k}`;
      this.listsBy.set(id, [
        ...(this.listsBy.get(id) ?? []),
        { fromProject: layer.kind === "project", source: layer.source, entries: section[k] as unknown[] },
      ]);
    }
    for (const k of Object.keys(section)) this.setBy.set(`${key}.${k}`, layer.source);
    return section;
  }

  /** The layer's top-level keys (`preset`, `allowProjectSpawnConfig`); true when it chose the preset. */
  private readMeta(layer: ConfigLayer): boolean {
    const meta = metaSchema.safeParse(Object.fromEntries(META_KEYS.filter((k) => k in layer.data).map((k) => [k, layer.data[k]])));
    if (!meta.success) {
      this.problems.push(...problemsOf(layer.source, "", meta.error));
      return false;
    }
    let chose = false;
    if (meta.data.preset && layer.kind === "project" && !this.allowProjectSpawn) {
      // The preset decides which programs run (KotaDB, MCP servers) and whose secrets redaction knows.
      this.ignoredTrustedKeys.push({ source: layer.source, section: "", key: "preset" });
      this.problems.push({
        source: layer.source,
        path: "preset",
        message: `${PROJECT_PRESET_IGNORED}. To allow it, add ${ALLOW_PROJECT_LINE} to your global config (${this.globalFile})`,
      });
    } else if (meta.data.preset) {
      this.preset = meta.data.preset;
      chose = true;
    }
    if (meta.data.allowProjectSpawnConfig !== undefined && layer.kind !== "global") {
      this.problems.push({
        source: layer.source,
        path: "allowProjectSpawnConfig",
        message: `ignored: only the global config (${this.globalFile}) may set this`,
      });
    }
    return chose;
  }

  /**
   * Additive lists: the union of every source's entries instead of the last source's list. Returns
   * each additive list as the user's own sources set it, for keys a broken cross-key rule puts back.
   */
  mergeAdditiveLists(): Map<string, unknown[]> {
    const trustedLists = new Map<string, unknown[]>();
    for (const plugin of this.plugins) {
      for (const k of plugin.additiveKeys ?? []) {
        const contributions = this.listsBy.get(`${plugin.configKey}.${k}`);
        const schema = plugin.schema.shape[k] as z.ZodType | undefined;
        if (!contributions || !schema) continue;
        const list = additiveList(schema, (plugin.defaults as Record<string, unknown[]>)[k] ?? [], contributions);
        this.merged[plugin.configKey] = { ...(this.merged[plugin.configKey] as Record<string, unknown>), [k]: list.value };
        trustedLists.set(`${plugin.configKey}.${k}`, list.trusted);
        for (const d of list.dropped) this.problems.push({ source: d.source, path: `${plugin.configKey}.${k}`, message: droppedMessage(d.count) });
      }
    }
    return trustedLists;
  }

  /** The plugin's section: defaults under the merged layers, cross-key rules and the whole schema kept. */
  valueOf(plugin: GovernorPlugin<any>, trustedLists: ReadonlyMap<string, unknown[]>): Record<string, unknown> & { enabled: boolean } {
    const full = deepMerge(plugin.defaults, this.merged[plugin.configKey]);
    const parsed = plugin.schema.safeParse(full);
    if (parsed.success) {
      const value = parsed.data as Record<string, unknown> & { enabled: boolean };
      // Rules across keys: report each against the file that set the keys, and put those keys back
      // to their defaults (which pass every rule); the rest of the section keeps its values.
      for (const broken of plugin.check(value)) {
        const setter = broken.keys.map((k) => this.setBy.get(`${plugin.configKey}.${k}`)).find(Boolean) ?? "config";
        this.problems.push({
          source: setter,
          path: `${plugin.configKey}.${broken.keys[0]}`,
          message: `${broken.message}; using the defaults for ${broken.keys.join(" and ")}`,
        });
        // An additive list goes back to the user's own entries, never below them.
        for (const k of broken.keys) value[k] = trustedLists.get(`${plugin.configKey}.${k}`) ?? (plugin.defaults as Record<string, unknown>)[k];
      }
      return value;
    }
    // Layers were valid one by one but not together: put the keys involved back to their defaults.
    this.problems.push(...problemsOf("merged config", plugin.configKey, parsed.error));
    const repaired: Record<string, unknown> = { ...(full as Record<string, unknown>) };
    for (const issue of parsed.error.issues) {
      const top = issue.code === "unrecognized_keys" && issue.path.length === 0 ? issue.keys : [String(issue.path[0] ?? "")];
      for (const key of top) {
        if (key in plugin.defaults) repaired[key] = (plugin.defaults as Record<string, unknown>)[key];
        else delete repaired[key];
      }
    }
    const again = plugin.schema.safeParse(repaired);
    return (again.success ? again.data : plugin.defaults) as never;
  }
}

/**
 * "file: key.path: message" lines for the user. Key names and paths come from files a repository
 * ships: each line shows its control characters as escapes, newlines included, so a key can neither
 * drive the terminal nor forge a line of its own.
 */
export function formatProblems(problems: readonly ConfigProblem[]): string[] {
  return problems.map((p) => visible(`${p.source}: ${p.path || "(file)"}: ${p.message}`));
}

/** Checks that a value is a plain JSON object, for layer loaders. */
export function asConfigObject(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

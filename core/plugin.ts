import { z } from "zod";
import type { Pipeline } from "./pipeline.ts";
import type { GovernorServices, ServiceKey } from "./services.ts";
import { deepMerge, type DeepPartial } from "./config/merge.ts";
import type { RenamedKeys } from "./config/renamed.ts";
import type { DoctorCheckContext, DoctorChecks } from "./doctor-check.ts";

/** Every plugin's config has an `enabled` switch, added by {@link definePlugin}. */
export type WithEnabled<C> = C & { enabled: boolean };

/** What a plugin author writes. */
export interface PluginSpec<S extends z.ZodObject> {
  /** Namespaced name, `scope:name` (`governor:timeout`, `acme:audit`). Shown in every error and status line. */
  name: string;
  /** Top-level key of this plugin's section in the config file (`timeout`, `prune`, `blobs`, `kota`). */
  configKey: string;
  /** One sentence for `/governor status` and the JSON Schema. */
  description: string;
  /** The plugin's options, without `enabled` and without defaults (those live in `defaults`). */
  schema: S;
  /** A complete value of `schema`: the one place defaults live. */
  defaults: z.infer<S>;
  /** Whether the plugin runs when the config does not say. Default true. */
  enabledByDefault?: boolean;
  /**
   * Top-level option keys only the user may set: those that name a program or its arguments,
   * environment or working directory, a path outside the blob cache, an endpoint, or a limit that
   * deletes data every project shares. A project config file may not set them unless the user's
   * global config sets `allowProjectSpawnConfig: true`; the global file and `PI_GOVERNOR_CONFIG`
   * (the user's environment) may. A key nested under a trusted key is trusted with it.
   */
  trustedKeys?: ReadonlyArray<keyof z.infer<S> & string>;
  /**
   * Keys that are trusted only in some configurations: given the section as the trusted sources
   * (defaults, global file, environment) set it, the top-level keys (`enabled` included) a project
   * file may not set either. Telemetry: while the user's config captures content, a project may not
   * turn telemetry or its export on, since that would decide that outputs leave the machine.
   */
  trustedKeysWhen?(trusted: Readonly<Record<string, unknown>>): ReadonlyArray<string>;
  /**
   * Top-level list keys that protect the user (tools denied, outputs kept off the disk, secrets
   * hidden, files never pruned). Layers add up instead of replacing: the list in force is the
   * default until the global file or the environment sets it, plus every entry any config source
   * adds (a project file's entries last), so a project file can add entries but never remove one.
   * Each must be a list (its default an array) and not a trusted key. See host/config/additive.ts.
   */
  additiveKeys?: ReadonlyArray<keyof z.infer<S> & string>;
  /**
   * Rules across keys that one key's schema cannot state (e.g. exit below enter). Each broken rule
   * names the keys involved (top-level keys of the section) and what to do; the resolver reports it
   * against the file that set them and puts those keys back to their defaults. The defaults must pass.
   */
  check?(config: z.infer<S>): ReadonlyArray<CrossFieldProblem>;
  /**
   * Old spellings of top-level keys, still read from config files: each is moved to its new key
   * (converted when its shape changed) and reported as "renamed; use <section>.<new>". Default none.
   */
  renamedKeys?: RenamedKeys;
  /** Services this plugin offers: its `apply` calls `services.provide(key, value)` for each. */
  provides?: ReadonlyArray<ServiceKey<any>>;
  /**
   * Services this plugin cannot work without (`services.need(key)`). The host applies their providers
   * first; without an enabled provider in the preset the plugin is not applied and the reason is listed.
   */
  requires?: ReadonlyArray<ServiceKey<any>>;
  /** Services this plugin uses when present (`services.maybe(key)`); their providers are applied first. */
  optional?: ReadonlyArray<ServiceKey<any>>;
  /**
   * What the doctor checks for this plugin (a program on PATH that really starts, a private folder),
   * from its resolved section: each line with the fix when it fails. Runs outside a session too
   * (`pi-governor doctor`), so it reads only the config and the context. Default none.
   */
  doctorChecks?: DoctorChecks<WithEnabled<z.infer<S>>>;
  /** Taps hooks and registers tools and commands. Runs once, before the pipeline is sealed. */
  apply(pipeline: Pipeline, config: WithEnabled<z.infer<S>>, services: GovernorServices): void | Promise<void>;
}

/** A broken rule across keys of one section: the keys involved and what to do. */
export interface CrossFieldProblem {
  /** Top-level keys of the section, the first one is named in the report. */
  keys: readonly string[];
  /** What is wrong and what to do, for the user. */
  message: string;
}

/** A ready plugin: `{ name, apply }` plus what the config loader needs. */
export interface GovernorPlugin<C = Record<string, unknown>> {
  /** Namespaced name (`governor:retry`, `acme:audit`), as taps and errors show it. */
  readonly name: string;
  /** Its section of the config file. */
  readonly configKey: string;
  /** One line for the config docs and `/governor status`. */
  readonly description: string;
  /** Full schema, `enabled` included, strict (unknown keys are errors). */
  readonly schema: z.ZodObject;
  /** Defaults after the factory's overrides, `enabled` included. */
  readonly defaults: WithEnabled<C>;
  /** Keys a project config may not set ({@link PluginSpec.trustedKeys}). */
  readonly trustedKeys: readonly string[];
  /** Keys trusted given the trusted sources' values ({@link PluginSpec.trustedKeysWhen}); none when the spec has none. */
  trustedKeysWhen?(trusted: Readonly<Record<string, unknown>>): ReadonlyArray<string>;
  /** Lists whose entries add up across config sources ({@link PluginSpec.additiveKeys}); empty when none. */
  readonly additiveKeys: readonly string[];
  /** Old key spellings config files may still use ({@link PluginSpec.renamedKeys}). */
  readonly renamedKeys?: RenamedKeys;
  /** Cross-key rules ({@link PluginSpec.check}); none when the spec has none. */
  check(config: Record<string, unknown>): ReadonlyArray<CrossFieldProblem>;
  /** Services offered, needed and used when present ({@link PluginSpec.provides}); empty when none. */
  readonly provides: ReadonlyArray<ServiceKey<any>>;
  /** Services it cannot run without. */
  readonly requires: ReadonlyArray<ServiceKey<any>>;
  /** Services it uses when a plugin provides them. */
  readonly optional: ReadonlyArray<ServiceKey<any>>;
  /** The doctor's checks for this plugin ({@link PluginSpec.doctorChecks}); absent when the spec has none. */
  doctorChecks?(config: WithEnabled<C>, context: DoctorCheckContext): ReturnType<DoctorChecks<WithEnabled<C>>>;
  /** Taps hooks and registers tools, commands and services; runs once per governor, before seal. */
  apply(pipeline: Pipeline, config: WithEnabled<C>, services: GovernorServices): void | Promise<void>;
}

/** Builds plugins from a spec; call it with overrides to change defaults in code (presets do). */
export type PluginFactory<C> = ((overrides?: DeepPartial<WithEnabled<C>>) => GovernorPlugin<C>) & {
  readonly pluginName: string;
  readonly configKey: string;
};

/**
 * Defines a plugin. The schema is extended with `enabled`, made strict, and checked against the
 * defaults once here, so a plugin with inconsistent defaults fails at import time, not in a session.
 */
export function definePlugin<S extends z.ZodObject>(spec: PluginSpec<S>): PluginFactory<z.infer<S>> {
  if (!/^[a-z0-9-]+:[a-z0-9-_.]+$/i.test(spec.name)) {
    throw new Error(`plugin name "${spec.name}" must be namespaced as scope:name, e.g. "acme:audit"`);
  }
  const schema = spec.schema
    .extend({ enabled: z.boolean().describe("Run this stage.") })
    .strict()
    .describe(spec.description);
  const baseDefaults = { ...spec.defaults, enabled: spec.enabledByDefault ?? true };
  const checked = schema.safeParse(baseDefaults);
  if (!checked.success) throw new Error(`plugin "${spec.name}": defaults do not match its schema: ${z.prettifyError(checked.error)}`);
  const check = (config: Record<string, unknown>): ReadonlyArray<CrossFieldProblem> => spec.check?.(config as z.infer<S>) ?? [];
  const broken = check(checked.data);
  if (broken.length) throw new Error(`plugin "${spec.name}": defaults break its own rule: ${broken[0]!.message}`);
  for (const key of spec.additiveKeys ?? []) {
    if ((spec.trustedKeys ?? []).includes(key)) throw new Error(`plugin "${spec.name}": "${key}" is both trusted and additive; choose one`);
    if (!Array.isArray((baseDefaults as Record<string, unknown>)[key])) throw new Error(`plugin "${spec.name}": additive key "${key}" must be a list`);
  }

  type C = z.infer<S>;
  const factory = (overrides?: DeepPartial<WithEnabled<C>>): GovernorPlugin<C> => {
    const defaults = overrides ? deepMerge(baseDefaults, overrides) : baseDefaults;
    const parsed = schema.safeParse(defaults);
    if (!parsed.success) throw new Error(`plugin "${spec.name}": invalid overrides: ${z.prettifyError(parsed.error)}`);
    return Object.freeze({
      name: spec.name,
      configKey: spec.configKey,
      description: spec.description,
      schema,
      defaults: parsed.data as WithEnabled<C>,
      trustedKeys: Object.freeze([...(spec.trustedKeys ?? [])]),
      trustedKeysWhen: (trusted: Readonly<Record<string, unknown>>) => spec.trustedKeysWhen?.(trusted) ?? [],
      additiveKeys: Object.freeze([...(spec.additiveKeys ?? [])]),
      renamedKeys: spec.renamedKeys ?? {},
      check,
      provides: Object.freeze([...(spec.provides ?? [])]),
      requires: Object.freeze([...(spec.requires ?? [])]),
      optional: Object.freeze([...(spec.optional ?? [])]),
      ...(spec.doctorChecks ? { doctorChecks: spec.doctorChecks as DoctorChecks<WithEnabled<C>> } : {}),
      apply: spec.apply as GovernorPlugin<C>["apply"],
    });
  };
  return Object.assign(factory, { pluginName: spec.name, configKey: spec.configKey });
}

/** A preset: a named list of plugins with their defaults, assembled into a pi extension by `createExtension`. */
export interface Preset {
  /** What the config's `preset` key names it by. */
  readonly name: string;
  /** One line for `/governor status` and the docs. */
  readonly description: string;
  /** Slash command that plugins' subcommands hang under (`/kota status`). Default "governor". */
  readonly commandRoot?: string;
  /** Builds the plugin list (fresh instances each time: presets are functions returning plugins). */
  plugins(): GovernorPlugin<any>[];
}

/** Defines a preset. */
export function definePreset(preset: Preset): Preset {
  return Object.freeze(preset);
}

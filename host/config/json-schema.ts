import { z } from "zod";
import type { GovernorPlugin } from "../../core/plugin.ts";
import { deepPartial } from "./resolve.ts";

/**
 * The JSON Schema of the config file for a set of plugins, for editors (`"$schema": ...`).
 * Every section and key is optional (files are layers over defaults); each key's default is shown.
 */
export function configJsonSchema(plugins: readonly GovernorPlugin<any>[], presetNames: readonly string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    $schema: { type: "string", description: "Path or URL of this JSON Schema, for editors" },
    preset: {
      type: "string",
      enum: [...presetNames],
      description: `${TRUSTED_NOTE} Which preset runs, and so which programs start and whose secrets redaction knows (default: the extension's own).`,
    },
    allowProjectSpawnConfig: {
      type: "boolean",
      description:
        "Global file only: let a project's .pi/pi-governor.json set trusted keys (programs, their args/env/cwd, paths outside the blob cache, retention of shared data). Default false.",
    },
  };
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (seen.has(plugin.configKey)) continue;
    seen.add(plugin.configKey);
    const section = z.toJSONSchema(deepPartial(plugin.schema), { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete section.$schema;
    addDefaults(section, plugin.defaults);
    markTrusted(section, plugin.trustedKeys);
    markAdditive(section, plugin.additiveKeys ?? []);
    properties[plugin.configKey] = { ...section, description: `${plugin.name}: ${plugin.description}` };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "pi-governor configuration",
    description: "~/.pi/agent/pi-governor.json (global) or .pi/pi-governor.json (project). Every key is optional.",
    type: "object",
    additionalProperties: false,
    properties,
  };
}

/** Prefix of a trusted key's description, so the reference shows which keys a project file cannot set. */
export const TRUSTED_NOTE = "Trusted: global file or PI_GOVERNOR_CONFIG only (a project file needs allowProjectSpawnConfig).";

/** Prefix of an additive list's description: what a project file can and cannot do with it. */
export const ADDITIVE_NOTE =
  "Adds up: the entries of every config file and PI_GOVERNOR_CONFIG are all in force; a project file can add entries, never remove one.";

function markTrusted(schema: Record<string, unknown>, trustedKeys: readonly string[]): void {
  prefixDescriptions(schema, trustedKeys, TRUSTED_NOTE);
}

function markAdditive(schema: Record<string, unknown>, additiveKeys: readonly string[]): void {
  prefixDescriptions(schema, additiveKeys, ADDITIVE_NOTE);
}

function prefixDescriptions(schema: Record<string, unknown>, keys: readonly string[], note: string): void {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const key of keys) {
    const prop = props?.[key];
    if (prop) prop.description = prop.description ? `${note} ${String(prop.description)}` : note;
  }
}

function addDefaults(schema: Record<string, unknown>, defaults: unknown): void {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!props || typeof defaults !== "object" || defaults === null) return;
  for (const [key, value] of Object.entries(defaults as Record<string, unknown>)) {
    const prop = props[key];
    if (!prop) continue;
    if (prop.type === "object" && typeof value === "object" && value !== null && !Array.isArray(value)) addDefaults(prop, value);
    else prop.default = value;
  }
}

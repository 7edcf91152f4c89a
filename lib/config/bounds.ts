/**
 * Size bounds for config values. Every string, list and record in a plugin's schema has one (a test
 * walks every shipped schema): a project file is untrusted, and an unbounded value is a way to make
 * pi copy megabytes around (a label once set to 8 MiB was written into every execution-log row).
 */
import { z } from "zod";

/** Longest tool name in config, in characters (pi's and MCP tools' names are far shorter). */
export const MAX_TOOL_NAME_CHARS = 128;
/** Longest path, program or URL in config, in characters (Linux PATH_MAX). */
export const MAX_PATH_CHARS = 4_096;
/** Longest free text in config (a hint, a description), in characters. */
export const MAX_TEXT_CHARS = 2_000;
/** Most entries of a list or record in config (tool lists, per-tool settings, arguments, environment). */
export const MAX_CONFIG_ENTRIES = 256;

/** A tool name: 1 to {@link MAX_TOOL_NAME_CHARS} characters. */
export function toolNameSchema(): z.ZodString {
  return z.string().min(1).max(MAX_TOOL_NAME_CHARS);
}

/** A list of tool names, at most {@link MAX_CONFIG_ENTRIES}. */
export function toolListSchema(): z.ZodArray<z.ZodString> {
  return z.array(toolNameSchema()).max(MAX_CONFIG_ENTRIES);
}

/** A path, program or URL: at most {@link MAX_PATH_CHARS} characters. */
export function pathSchema(): z.ZodString {
  return z.string().max(MAX_PATH_CHARS);
}

/** Free text: at most `max` characters (default {@link MAX_TEXT_CHARS}). */
export function textSchema(max = MAX_TEXT_CHARS): z.ZodString {
  return z.string().max(max);
}

/**
 * A record with at most `maxKeys` keys (default {@link MAX_CONFIG_ENTRIES}). zod records have no
 * size check of their own: a refinement checks it, and `maxProperties` states it in the JSON Schema.
 */
export function boundedRecord<K extends z.core.$ZodRecordKey, V extends z.ZodType>(key: K, value: V, maxKeys = MAX_CONFIG_ENTRIES) {
  return z
    .record(key, value)
    .refine((o) => Object.keys(o).length <= maxKeys, { message: `at most ${maxKeys} entries` })
    .meta({ maxProperties: maxKeys });
}

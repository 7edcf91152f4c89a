/**
 * Every preset pi-governor ships, for config-driven preset choice (`"preset": "<name>"`) and the
 * config JSON Schema generator.
 */
import type { Preset } from "../core/index.ts";
import { kotaPreset } from "./kota/index.ts";
import { leanPreset } from "./lean/index.ts";
import { mcpPreset } from "./mcp/index.ts";

export { kotaPreset } from "./kota/index.ts";
export { leanPreset } from "./lean/index.ts";
export { mcpPreset } from "./mcp/index.ts";

/** All presets, the default (`kota`) first. */
export const presets: readonly Preset[] = Object.freeze([kotaPreset, leanPreset, mcpPreset]);

/** Every preset but `preset` (what `createExtension(preset, { presets })` may switch to). */
export function presetsExcept(preset: Preset): Preset[] {
  return presets.filter((p) => p !== preset);
}

/**
 * What replay simulates: the user's own pruning, read the way the extension reads it. Config comes
 * from the same files and environment (or one `--config` file), every preset's sections are known
 * (so a README-style config with kota/blobs/budget sections raises no false warnings), broken files
 * are reported, and the prune settings are those of the preset the config picks (kota by default,
 * with its own prune defaults), not a bare prune plugin's.
 */
import { CONFIG_MAX_BYTES, type ConfigLayer, createGovernor } from "../../host/index.ts";
import { agentDirFrom } from "../../lib/config/index.ts";
import { readBoundedFileSync } from "../../lib/safe-file/index.ts";

/** The pruning replay simulates and where it came from. */
export interface ReplayConfig {
  /** The resolved `prune` section (defaults of the preset, then the files), `enabled` included. */
  prune: Record<string, unknown>;
  /** The resolved `fold` section (folding is its own plugin; `{ enabled: false }` when the preset has none). */
  fold: Record<string, unknown>;
  /** The preset whose prune settings these are. */
  preset: string;
  /** Config sources that contributed, e.g. `defaults <- /home/u/.pi/agent/pi-governor.json`. */
  sources: string;
  /** Config problems (unknown keys, bad values, broken JSON), one line each. */
  problems: string[];
}

/**
 * Reads `--config <file>` as one layer, like the config files pi reads: a regular file of at most
 * CONFIG_MAX_BYTES (a FIFO or a device is refused unread). Throws a clear Error for an unreadable
 * file or broken JSON.
 */
function fileLayer(path: string): ConfigLayer {
  let data: unknown;
  try {
    const bytes = readBoundedFileSync(path, { maxBytes: CONFIG_MAX_BYTES });
    if (bytes === null) throw new Error("no such file");
    data = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new Error(`cannot use --config ${path}: ${(error as Error).message}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error(`--config ${path}: expected a JSON object like { "prune": { ... } }`);
  return { kind: "global", source: path, data: data as Record<string, unknown> };
}

/**
 * The prune settings the user's pi runs with in `cwd` (or from `configFile` alone). Nothing is
 * started: the governor is built only to resolve config (its plugins start lazily).
 */
export async function replayConfig(options: { configFile?: string; cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<ReplayConfig> {
  const { presets } = await import("../../presets/index.ts");
  const governor = await createGovernor({
    preset: presets[0]!,
    presets: presets.slice(1),
    cwd: options.cwd,
    agentDir: agentDirFrom(options.env),
    env: options.env,
    ...(options.configFile ? { layers: [fileLayer(options.configFile)] } : {}),
  });
  const prune = governor.config.values.get("prune") ?? { enabled: false };
  const fold = governor.config.values.get("fold") ?? { enabled: false };
  return { prune: { ...prune }, fold: { ...fold }, preset: governor.preset.name, sources: governor.config.sources.join(" <- "), problems: governor.problems() };
}

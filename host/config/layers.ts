import { join } from "node:path";
import { readBoundedFileSync, UnsafeFileError } from "../../lib/safe-file/index.ts";
import { asConfigObject, type ConfigLayer, type ConfigProblem } from "./resolve.ts";
import { CONFIG_FILE } from "../../lib/config/index.ts";

export { agentDirFrom, CONFIG_FILE } from "../../lib/config/index.ts";

/** The original extension's file name, still read when no pi-governor.json exists. */
export const LEGACY_CONFIG_FILE = "pi-kota.json";
/** Largest config file read, in bytes (256 KiB); a larger one is refused unread. */
export const CONFIG_MAX_BYTES = 256 * 1024;

/** Where to look, for a working directory and environment. */
export interface LayerLocations {
  cwd: string;
  agentDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * A config file as JSON, null when it does not exist. `within`: the folder a project file must stay
 * in after links are resolved (the project); the global file may be a link anywhere (dotfiles). Either
 * must be a regular file of at most {@link CONFIG_MAX_BYTES}: a link to `/dev/zero` or a FIFO is
 * refused unread, with a problem that says what to do.
 */
function readJsonFile(path: string, within: string | undefined, problems: ConfigProblem[]): Record<string, unknown> | undefined | null {
  let bytes: Buffer | null;
  try {
    bytes = readBoundedFileSync(path, { maxBytes: CONFIG_MAX_BYTES, ...(within !== undefined ? { within } : {}) });
  } catch (error) {
    const why =
      error instanceof UnsafeFileError
        ? `refused: ${error.reason}. A config file must be a regular JSON file of at most ${CONFIG_MAX_BYTES / 1024} KiB${within !== undefined ? " inside the project" : ""}; replace it with one or remove it`
        : `cannot read: ${(error as Error).message}`;
    problems.push({ source: path, path: "", message: why });
    return undefined;
  }
  if (bytes === null) return null;
  return parseJson(path, bytes.toString("utf8"), problems);
}

function parseJson(source: string, text: string, problems: ConfigProblem[]): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte order mark; JSON.parse rejects it.
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch (error) {
    problems.push({ source, path: "", message: `not valid JSON (${(error as Error).message}); fix the syntax or delete the file` });
    return undefined;
  }
  const object = asConfigObject(value);
  if (!object) problems.push({ source, path: "", message: 'expected a JSON object at the top level, like { "prune": { "enabled": true } }' });
  return object;
}

function fileLayer(kind: "global" | "project", dir: string, within: string | undefined, problems: ConfigProblem[]): ConfigLayer | undefined {
  for (const name of [CONFIG_FILE, LEGACY_CONFIG_FILE]) {
    const path = join(dir, name);
    const data = readJsonFile(path, within, problems);
    if (data === null) continue; // missing: try the legacy name
    return data ? { kind, source: path, data } : undefined;
  }
  return undefined;
}

/**
 * Reads the global file (`<agentDir>/pi-governor.json`), the project file (`<cwd>/.pi/pi-governor.json`)
 * and the environment (`PI_GOVERNOR_CONFIG`: inline JSON; `PI_GOVERNOR_PRESET`: a preset name).
 * Unreadable or malformed sources become problems; they never throw.
 */
export function loadConfigLayers(where: LayerLocations): { layers: ConfigLayer[]; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const layers: ConfigLayer[] = [];
  const global = fileLayer("global", where.agentDir, undefined, problems);
  if (global) layers.push(global);
  const project = fileLayer("project", join(where.cwd, ".pi"), where.cwd, problems);
  if (project) layers.push(project);
  const inline = where.env.PI_GOVERNOR_CONFIG;
  if (inline) {
    const data = parseJson("env PI_GOVERNOR_CONFIG", inline, problems);
    if (data) layers.push({ kind: "env", source: "env PI_GOVERNOR_CONFIG", data });
  }
  const preset = where.env.PI_GOVERNOR_PRESET;
  if (preset) layers.push({ kind: "env", source: "env PI_GOVERNOR_PRESET", data: { preset } });
  return { layers, problems };
}

/**
 * The `kota` config section: how KotaDB is started and how indexing and autoContext
 * behave. `command`, `args`, `env` and `cwd` are trusted keys: a project config may not set them
 * unless the user's global config allows it (they decide what program runs).
 */
import { z } from "zod";
import { boundedRecord, MAX_CONFIG_ENTRIES, MAX_TOOL_NAME_CHARS, pathSchema } from "../../lib/config/index.ts";

/** KotaDB's default start command: `bun x kotadb@next --stdio --toolset core`. */
export const DEFAULT_KOTA_COMMAND = "bun";
/** Arguments of the default start command; the value after `--toolset` follows `toolset`. */
export const DEFAULT_KOTA_ARGS: readonly string[] = Object.freeze(["x", "kotadb@next", "--stdio", "--toolset", "core"]);

/** Schema of the `kota` section (without `enabled`). */
export const kotaSchema = z.object({
  // Not a trusted key, so a project config may set it: a plain word only, never something that reads as a flag.
  toolset: z
    .string()
    .max(32)
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, "a toolset name: lower-case letters, digits, - and _")
    .describe('KotaDB toolset; replaces the value after "--toolset" in args. Default "core".'),
  autoContext: z
    .enum(["off", "onPaths", "always"])
    .describe(
      'KotaDB briefing before a prompt (the autoContext plugin reads it; autoContext.mode can override): "off"; "onPaths": when the prompt names 1-3 existing files; "always": the same, plus a one-line index note once per session and HEAD when it names none. Default "off".',
    ),
  confirmIndex: z
    .boolean()
    .describe(
      "Ask the user before indexing (first indexing can be slow). Default true. While the global file or PI_GOVERNOR_CONFIG asks (the default), a project file may not change it or indexWithoutUi.",
    ),
  indexWithoutUi: z
    .enum(["refuse", "allow"])
    .describe(
      'Without a UI (print/RPC mode) a confirmation cannot be asked: "refuse" tells the model how to proceed instead, "allow" indexes without asking. Default "refuse".',
    ),
  command: pathSchema().min(1).describe('Program that starts KotaDB. Default "bun".'),
  args: z.array(pathSchema()).max(MAX_CONFIG_ENTRIES).describe('Its arguments. Default ["x", "kotadb@next", "--stdio", "--toolset", "core"].'),
  env: boundedRecord(z.string().max(MAX_TOOL_NAME_CHARS), pathSchema()).describe(
    "Extra environment for KotaDB (PATH and HOME are passed through). Default {}.",
  ),
  cwd: pathSchema().describe(
    'Working directory of KotaDB; "" means the filesystem root, so nothing the repository ships (bunfig.toml, node_modules/.bin) runs inside KotaDB. A repository path here undoes that protection.',
  ),
  connectTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .describe(
      "How long KotaDB may take to start and answer initialize, in milliseconds. Default 10000 (bun x may download KotaDB on first run: raise it on slow networks).",
    ),
  staleWarning: z.boolean().describe("Warn once (user and model) when git HEAD moved since the index was built. Default true."),
});

/** The `kota` options (without `enabled`). */
export type KotaOptions = z.infer<typeof kotaSchema>;

/** Defaults of the `kota` section. */
export const kotaDefaults: KotaOptions = {
  toolset: "core",
  autoContext: "off",
  confirmIndex: true,
  indexWithoutUi: "refuse",
  command: DEFAULT_KOTA_COMMAND,
  args: [...DEFAULT_KOTA_ARGS],
  env: {},
  cwd: "",
  connectTimeoutMs: 10_000,
  staleWarning: true,
};

/** `args` with the value after `--toolset` set to `toolset` (unchanged when there is no `--toolset`). */
export function argsWithToolset(args: readonly string[], toolset: string): string[] {
  const out = [...args];
  const at = out.indexOf("--toolset");
  if (at >= 0 && at + 1 < out.length) out[at + 1] = toolset;
  return out;
}

/**
 * `pi-governor <command>`: the command-line entry. Each command is loaded only when asked for (stats
 * and search beside their plugins, replay in replay/), so `pi-governor stats` never loads the pruning code.
 */

import { fileURLToPath } from "node:url";
import type { CliCommand, CliContext, CliIO } from "../lib/cli-command/index.ts";
// Not through core/index.ts: that loads the pipeline (tapable), and a missing dependency must be
// reported below, not crash this module's import.
import { visibleLines } from "../lib/visible/index.ts";
import { CANNOT_READ_EXIT, USAGE_EXIT } from "../lib/cli-command/index.ts";
import { didYouMean } from "../lib/did-you-mean/index.ts";
import { rerunOnPiNode } from "./sqlite-node.ts";

export type { CliCommand, CliContext, CliIO };

const commands: Record<string, { summary: string; load: () => Promise<{ run: CliCommand }> }> = {
  replay: {
    summary:
      "replay [session.jsonl | dir ...]  simulate pruning on pi sessions (no argument: your 5 most recent sessions, or a bundled sample when you have none)",
    load: () => import("./replay/command.ts"),
  },
  stats: {
    summary: "stats [--db path]  per-tool counts, latency, timeouts, errors and retries from the execution log",
    load: () => import("../plugins/execution-log/stats-cli.ts"),
  },
  search: {
    summary: "search <words> [options]  find earlier tool outputs in the recall index (search --help lists the options)",
    load: () => import("../plugins/recall/search-cli.ts"),
  },
  schema: { summary: "schema [out.json] [--doc file]  print (or write) the config JSON Schema", load: () => import("./write-schema.ts") },
  doctor: {
    summary: "doctor [--cwd dir]  check Node, pi, Bun/KotaDB, SQLite, the blob cache, config and preset; print each fix",
    load: () => import("./doctor.ts"),
  },
};

const stdio: CliIO = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/**
 * Runs the CLI; resolves to the process exit code. Everything a command prints passes
 * {@link visibleLines}: commands print stored tool output (search), tool and server names (stats)
 * and config keys (doctor), and no escape sequence in them may reach the terminal. JSON output
 * stays valid JSON (its C0 controls are escaped already; the rest become `\u` escapes).
 */
export async function main(argv: string[], raw: CliIO = stdio): Promise<number> {
  const io: CliIO = { out: (t) => raw.out(visibleLines(t)), err: (t) => raw.err(visibleLines(t)) };
  const [name, ...rest] = argv;
  const usage = `usage: pi-governor <command>\n\n${Object.entries(commands)
    .map(([n, c]) => `  ${c.summary.startsWith(n) ? c.summary : `${n}  ${c.summary}`}`)
    .join("\n")}\n\nEvery command answers --help. From a clone: node bin/pi-governor.mjs <command>.\n`;
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(usage);
    return 0;
  }
  // No command is a wrong argument like any other: the usage on stderr, exit 2.
  if (!name) {
    io.err(`pi-governor: give a command.\n\n${usage}`);
    return USAGE_EXIT;
  }
  const command = commands[name];
  if (!command) {
    io.err(`pi-governor: unknown command "${name}"${didYouMean(name, Object.keys(commands))}. Commands: ${Object.keys(commands).join(", ")}\n`);
    return USAGE_EXIT;
  }
  try {
    const mod = await command.load();
    return await mod.run(rest, io, { trustedConfig: once(() => trustedConfigOf(process.env)), rerunWithSqlite: () => rerunOnPiNode(argv, io) });
  } catch (error) {
    io.err(`pi-governor ${name}: ${missingModuleMessage(error) ?? (error as Error).message}\n`);
    return CANNOT_READ_EXIT;
  }
}

/**
 * The global config file and PI_GOVERNOR_CONFIG merged (see CliContext.trustedConfig); `{}` when
 * neither is set or readable. Loaded on first use, so commands that need no config never read it.
 */
async function trustedConfigOf(env: NodeJS.ProcessEnv): Promise<Readonly<Record<string, unknown>>> {
  try {
    const { agentDirFrom, loadConfigLayers } = await import("../host/config/layers.ts");
    const { deepMerge } = await import("../core/config/merge.ts");
    const { layers } = loadConfigLayers({ agentDir: agentDirFrom(env), cwd: process.cwd(), env });
    let merged: Record<string, unknown> = {};
    for (const layer of layers) if (layer.kind === "global" || layer.kind === "env") merged = deepMerge(merged, layer.data);
    return merged;
  } catch {
    return {};
  }
}

function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/** Where this package is installed: the folder whose dependencies are missing. */
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/**
 * For a dependency that does not load (`Cannot find module 'x'`, from Node's or jiti's resolver):
 * which module, and the install that brings it, instead of a require stack.
 */
export function missingModuleMessage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const name = /Cannot find (?:module|package) '([^']+)'/.exec((error as Error).message)?.[1];
  const what = name ? `the module "${name}" is not installed` : "a module it needs is not installed";
  return `${what} (${firstLine((error as Error).message)}). Fix: run \`npm ci --omit=dev\` in ${PACKAGE_DIR} (pi-governor's runtime dependencies), or reinstall the package.`;
}

const firstLine = (text: string) => text.split("\n", 1)[0]!;

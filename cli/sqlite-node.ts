/**
 * Reading what pi wrote from a Node without SQLite. pi 1.x runs on Node >= 22.19, whose built-in
 * node:sqlite writes the execution log and the recall index; a shell's `node` may be older (Node 20
 * without better-sqlite3, which needs a native build). Then `pi-governor stats` and `search` run
 * again, the same arguments, on the Node the `pi` command on PATH runs with (lib/pi/command.ts:
 * read from its link or wrapper, never from a place the current project controls), and its exit
 * code is theirs. Nothing is built or downloaded.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CliIO } from "../lib/cli-command/index.ts";
// command.ts alone (node: modules only): main.ts must load even where a dependency is missing.
import { readPiCommand, untrustedRoots } from "../lib/pi/command.ts";

/** Set in the re-run's environment (to the first Node's version): a re-run never re-runs again. */
export const RERUN_ENV = "PI_GOVERNOR_CLI_RERUN";

/** This package's CLI entry: the file the re-run starts (the package's own, never the project's). */
const BIN = fileURLToPath(new URL("../bin/pi-governor.mjs", import.meta.url));

/** The Node the `pi` command on PATH runs with, when it is another program than this process's. */
export function piNodeElsewhere(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const node = readPiCommand(env.PATH, untrustedRoots(cwd))?.node;
  if (!node) return undefined;
  let self = process.execPath;
  try {
    self = realpathSync(self);
  } catch {
    // compare as given
  }
  return node === self ? undefined : node;
}

/**
 * Runs `pi-governor <argv>` on the Node pi runs with and resolves to its exit code, its output passed
 * through `io`; undefined when there is no such Node (or this is already the re-run).
 */
export async function rerunOnPiNode(
  argv: readonly string[],
  io: CliIO,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<number | undefined> {
  if (env[RERUN_ENV]) return undefined;
  const node = piNodeElsewhere(env, cwd);
  if (!node) return undefined;
  return new Promise((resolve) => {
    const child = spawn(node, [BIN, ...argv], { cwd, env: { ...env, [RERUN_ENV]: process.versions.node }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.setEncoding("utf8").on("data", (t: string) => io.out(t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => io.err(t));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

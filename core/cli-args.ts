/**
 * The one argument parser of every `pi-governor` subcommand (node:util parseArgs), so each answers
 * `--help` the same way (usage on stdout, exit 0) and a wrong argument the same way (the error and
 * the usage on stderr, exit 2).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CliIO } from "./cli-command.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Exit code of a usage error. */
export const USAGE_EXIT = 2;

/**
 * Parses `argv` against `options` (plus `-h/--help`). Returns the parsed values and positionals, or
 * an exit code when the command is done: 0 after printing `usage` for --help, 2 after a usage error.
 */
export function parseCommandArgs<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  io: CliIO,
  limits: { maxPositionals?: number } = {},
): ReturnType<typeof parseArgs<{ options: O & { help: { type: "boolean"; short: "h" } }; allowPositionals: true; args: string[]; strict: true }>> | number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } } as O & { help: { type: "boolean"; short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage}`);
    return USAGE_EXIT;
  }
  if ((parsed.values as { help?: boolean }).help) {
    io.out(usage);
    return 0;
  }
  if (limits.maxPositionals !== undefined && parsed.positionals.length > limits.maxPositionals) {
    io.err(
      `unexpected argument${parsed.positionals.length - limits.maxPositionals > 1 ? "s" : ""}: ${parsed.positionals.slice(limits.maxPositionals).join(" ")}\n\n${usage}`,
    );
    return USAGE_EXIT;
  }
  return parsed;
}

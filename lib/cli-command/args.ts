/**
 * The one argument parser of every `pi-governor` subcommand (node:util parseArgs), so each answers
 * `--help` the same way (usage on stdout, exit 0) and a wrong argument the same way (the error and
 * the usage on stderr, exit 2).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CliIO } from "./command.ts";
import { didYouMean } from "../did-you-mean/index.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Exit code of a usage error (a wrong argument, no command). */
export const USAGE_EXIT = 2;

/**
 * Exit code of a command that could not do its work: a file it reads (the execution log, the recall
 * index) cannot be opened or read, no SQLite driver loads, a dependency is not installed. `stats`
 * and `search` use it alike; 1 stays "nothing found" (search) and "a check failed" (doctor).
 */
export const CANNOT_READ_EXIT = 3;

/** The command a usage text is for: `pi-governor stats` from "usage: pi-governor stats [--db path] ...". */
function commandOf(usage: string): string {
  return /^usage: (pi-governor(?: [a-z-]+)?)/.exec(usage)?.[1] ?? "pi-governor";
}

/**
 * Node's parse error in our words: an unknown option with the closest known one, other errors as
 * Node says them (Node's unknown-option hint quotes unevenly: `as in '-- "--bogus"`).
 */
function parseError(error: unknown, options: Options): string {
  const e = error as { code?: string; message?: string };
  const unknown = e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /^Unknown option '([^']+)'/.exec(e.message ?? "")?.[1] : undefined;
  if (unknown) {
    const known = [...Object.keys(options).map((o) => `--${o}`), "--help"];
    return `unknown option ${unknown}${didYouMean(unknown, known, (n) => n)}`;
  }
  return String(e.message ?? error);
}

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
    io.err(`${commandOf(usage)}: ${parseError(error, options)}\n\n${usage}`);
    return USAGE_EXIT;
  }
  if ((parsed.values as { help?: boolean }).help) {
    io.out(usage);
    return 0;
  }
  if (limits.maxPositionals !== undefined && parsed.positionals.length > limits.maxPositionals) {
    io.err(
      `${commandOf(usage)}: unexpected argument${parsed.positionals.length - limits.maxPositionals > 1 ? "s" : ""}: ${parsed.positionals.slice(limits.maxPositionals).join(" ")}\n\n${usage}`,
    );
    return USAGE_EXIT;
  }
  return parsed;
}

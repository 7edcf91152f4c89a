/**
 * The contract of a `pi-governor <command>` subcommand. Commands live beside the plugin they belong to
 * (the execution log's `stats`, recall's `search`) and the CLI in cli/ loads them on demand, so the
 * contract sits in the kernel: plugins implement it without importing the CLI above them.
 */
import { MAX_PATH_CHARS } from "../config/index.ts";

/** Output streams, injectable for tests. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/** What the CLI hands a command besides its arguments and streams. */
export interface CliContext {
  /**
   * The config as the trusted sources set it: the global pi-governor.json (in the agent directory)
   * merged with PI_GOVERNOR_CONFIG. Project files are left out: a repository must not move the files
   * a command opens. `{}` when there is none or it cannot be read (the doctor reports why).
   */
  trustedConfig(): Promise<Readonly<Record<string, unknown>>>;
  /**
   * For a command that found no SQLite driver in this Node: runs the same command on the Node pi
   * runs with (when the `pi` command names another one) and resolves to its exit code, its output
   * already written; undefined when there is none, and the command reports the failure itself.
   */
  rerunWithSqlite?(): Promise<number | undefined>;
}

/** A CLI command: parses its own argv, writes to the given streams, resolves to the process exit code. */
export type CliCommand = (argv: string[], io: CliIO, context?: CliContext) => Promise<number>;

/**
 * `section.key` of the trusted config when it is a non-empty string of at most MAX_PATH_CHARS
 * characters without a NUL (what the plugin's schema accepts for a path); undefined otherwise, so the
 * command falls back to its default as the plugin would.
 */
export async function configuredPath(context: CliContext | undefined, section: string, key: string): Promise<string | undefined> {
  if (!context) return undefined;
  const part = (await context.trustedConfig())[section];
  if (typeof part !== "object" || part === null || Array.isArray(part)) return undefined;
  const value = (part as Record<string, unknown>)[key];
  return typeof value === "string" && value.length > 0 && value.length <= MAX_PATH_CHARS && !value.includes("\0") ? value : undefined;
}

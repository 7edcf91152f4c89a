/**
 * The contract of a `pi-governor <command>` subcommand. Commands live beside the plugin they belong to
 * (the execution log's `stats`, prune's `replay`) and the CLI in cli/ loads them on demand, so the
 * contract sits in the kernel: plugins implement it without importing the CLI above them.
 */

/** Output streams, injectable for tests. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/** A CLI command: parses its own argv, writes to the given streams, resolves to the process exit code. */
export type CliCommand = (argv: string[], io: CliIO) => Promise<number>;

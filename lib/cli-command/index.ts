/**
 * What a `pi-governor <command>` subcommand a plugin ships is made of: the contract the CLI calls
 * (command.ts) and the one argument parser every subcommand uses (args.ts).
 */
export * from "./args.ts";
export * from "./command.ts";

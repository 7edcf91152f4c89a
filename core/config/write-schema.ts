import type { CliCommand } from "../cli/main.ts";

// PLACEHOLDER: replaced by the real command in this session.
export const run: CliCommand = async (_argv, io) => {
  io.err("not built yet\n");
  return 2;
};

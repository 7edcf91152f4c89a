/**
 * `pi-governor doctor [--cwd dir] [--json]`: the doctor's checks outside pi, for the config pi would
 * load in `--cwd` (default: the current directory). Exits 0 when nothing failed, 1 otherwise.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { createGovernor } from "../host/index.ts";
import { agentDirFrom } from "../lib/config/index.ts";
import type { CliCommand } from "../lib/cli-command/index.ts";
import { parseCommandArgs, USAGE_EXIT } from "../lib/cli-command/index.ts";
import { formatDoctorReport, runDoctor } from "../plugins/doctor/checks.ts";
import { DEFAULT_START_TIMEOUT_MS, defaultDoctorEnvironment } from "../plugins/doctor/environment.ts";

const USAGE = `usage: pi-governor doctor [--cwd dir] [--json]

Checks Node and pi, SQLite, the config files pi-governor reads for --cwd and their problems, which
preset and stages are active, and what each stage needs (the kota preset: Bun and a real KotaDB
start, at most doctor.startTimeoutMs, default 15 s; the blob cache and recall index folders).
Prints the fix for each failed check. Writes nothing: a program a check starts (KotaDB) keeps its
data in a temporary folder, removed when it stops.

  --cwd dir   the project to check (default: the current directory)
  --json      print the results as JSON
  -h, --help  this text
`;

/** The `doctor` command (see the module comment). */
export const run: CliCommand = async (argv, io) => {
  const parsed = parseCommandArgs(argv, { cwd: { type: "string" }, json: { type: "boolean" } }, USAGE, io, { maxPositionals: 0 });
  if (typeof parsed === "number") return parsed;
  const env = process.env;
  const cwd = resolve(parsed.values.cwd ?? process.cwd());
  // A folder that is not there is a wrong argument: nothing is checked, and nothing is created for it.
  if (!isDirectory(cwd)) {
    io.err(`pi-governor doctor: --cwd ${cwd} is not a folder.\n\n${USAGE}`);
    return USAGE_EXIT;
  }
  const agentDir = agentDirFrom(env);
  const { presets } = await import("../presets/index.ts");
  const governor = await createGovernor({ preset: presets[0]!, presets: presets.slice(1), cwd, agentDir, env });
  const startTimeoutMs = Number(governor.config.values.get("doctor")?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  const results = await runDoctor(defaultDoctorEnvironment({ governor, cwd, agentDir, env, startTimeoutMs, host: "shell" }));
  io.out(parsed.values.json ? `${JSON.stringify({ results }, null, 2)}\n` : formatDoctorReport(results));
  return results.some((r) => r.status === "fail") ? 1 : 0;
};

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `governor:doctor` (config key `doctor`): `/<root> doctor` and `/governor doctor` check what a
 * session needs (Node and pi versions, Bun and a real KotaDB start, SQLite, the blob cache, config
 * files and their problems, the preset and its stages) and print the fix for each failed check. The
 * same checks run outside pi as `pi-governor doctor` (cli.ts). The report reaches the user in every
 * pi mode: a notification with a UI (interactive, RPC), stderr without one (print mode).
 */
import { z } from "zod";
import { definePlugin, governorOf, type GovernorCommand, type GovernorServices, type Pipeline } from "../../core/sdk.ts";
import { type CheckResult, formatDoctorReport, runDoctor } from "./checks.ts";
import { DEFAULT_KOTA_DEADLINE_MS, defaultDoctorEnvironment } from "./environment.ts";

export {
  checkBlobFolders,
  checkCacheDir,
  checkConfig,
  checkKota,
  checkNode,
  checkPi,
  checkPreset,
  checkSqlite,
  formatDoctorReport,
  runDoctor,
  type CheckResult,
  type CheckStatus,
  type DoctorEnvironment,
} from "./checks.ts";
export { defaultDoctorEnvironment, startKotaOnce } from "./environment.ts";
export { findPi, type PiInstall } from "../../lib/pi/index.ts";

/** Plugin name. */
export const DOCTOR_PLUGIN = "governor:doctor";

/** Options of the doctor (config key `doctor`). */
export const doctorSchema = z.object({
  kotaStartTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(120_000)
    .describe("How long the doctor waits for KotaDB to start and list its tools, in milliseconds. Default 15000."),
});

/** The worst status of a report, as a notification level. */
export function reportLevel(results: readonly CheckResult[]): "info" | "warning" | "error" {
  if (results.some((r) => r.status === "fail")) return "error";
  return results.some((r) => r.status === "warn") ? "warning" : "info";
}

function doctorCommand(pipeline: Pipeline, services: GovernorServices, deadlineMs: number): GovernorCommand {
  return {
    description: "Check Node, pi, Bun and KotaDB, SQLite, the blob cache, config files and the preset; print the fix for each failure",
    async handler(_args, ctx) {
      const governor = governorOf(pipeline);
      if (!governor) throw new Error("the governor is still loading; run the doctor again in a moment");
      const results = await runDoctor(
        defaultDoctorEnvironment({ governor, cwd: ctx.cwd, agentDir: services.agentDir, env: services.env, kotaDeadlineMs: deadlineMs }),
      );
      // A command's UI shows the answer in every mode (stderr in print mode).
      ctx.ui.notify(formatDoctorReport(results).trimEnd(), reportLevel(results));
    },
  };
}

/** The doctor plugin factory: `doctor()`. */
export const doctor = definePlugin({
  name: DOCTOR_PLUGIN,
  configKey: "doctor",
  description: "The /governor doctor command: checks Node, pi, Bun and KotaDB, SQLite, the blob cache, config and preset, with the fix for each failure",
  schema: doctorSchema,
  defaults: { kotaStartTimeoutMs: DEFAULT_KOTA_DEADLINE_MS },
  apply(pipeline, config, services) {
    const command = doctorCommand(pipeline, services, config.kotaStartTimeoutMs);
    pipeline.registerCommand(DOCTOR_PLUGIN, `${services.commandRoot} doctor`, command);
    if (services.commandRoot !== "governor") pipeline.registerCommand(DOCTOR_PLUGIN, "governor doctor", command);
  },
});

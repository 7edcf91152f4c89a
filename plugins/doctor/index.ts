/**
 * `governor:doctor` (config key `doctor`): `/<root> doctor` and `/governor doctor` check what a
 * session needs (Node and pi versions, SQLite, config files and their problems, the preset and its
 * stages) and what each plugin of the preset checks for itself (`doctorChecks` in its spec: a program
 * that really starts, a private folder), and print the fix for each failed check. The same checks run
 * outside pi as `pi-governor doctor` (cli/doctor.ts). The report reaches the user in every pi mode: a
 * notification with a UI (interactive, RPC), stderr without one (print mode).
 */
import { z } from "zod";
import { definePlugin, governorOf, type GovernorCommand, type GovernorServices, type Pipeline } from "../../core/index.ts";
import { type CheckResult, formatDoctorReport, runDoctor } from "./checks.ts";
import { DEFAULT_START_TIMEOUT_MS, defaultDoctorEnvironment } from "./environment.ts";

export {
  checkConfig,
  checkNode,
  checkPi,
  checkPlugins,
  checkPreset,
  checkSqlite,
  formatDoctorReport,
  runDoctor,
  type CheckResult,
  type CheckStatus,
  type DoctorEnvironment,
} from "./checks.ts";
export { DEFAULT_START_TIMEOUT_MS, defaultDoctorEnvironment } from "./environment.ts";
export { findPi, type PiInstall } from "../../lib/pi/index.ts";

/** Plugin name. */
export const DOCTOR_PLUGIN = "governor:doctor";

/** Options of the doctor (config key `doctor`). */
export const doctorSchema = z.object({
  startTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(120_000)
    .describe("How long a check waits for a program it starts (a plugin's server) to start and answer, in milliseconds. Default 15000."),
});

/** The doctor's options (without `enabled`). */
export type DoctorOptions = z.infer<typeof doctorSchema>;

/** The worst status of a report, as a notification level. */
export function reportLevel(results: readonly CheckResult[]): "info" | "warning" | "error" {
  if (results.some((r) => r.status === "fail")) return "error";
  return results.some((r) => r.status === "warn") ? "warning" : "info";
}

/**
 * One line after the report when a check failed or warned: how many, which, and that the fixes are in
 * the report above. Undefined when everything passed.
 */
export function reportSummary(results: readonly CheckResult[]): string | undefined {
  const failed = [...new Set(results.filter((r) => r.status === "fail").map((r) => r.name))];
  const warned = [...new Set(results.filter((r) => r.status === "warn").map((r) => r.name))];
  if (!failed.length && !warned.length) return undefined;
  const part = (names: string[], what: string) => (names.length ? `${what}: ${names.join(", ")}` : "");
  return `pi-governor doctor: ${[part(failed, "failed"), part(warned, "warnings")].filter(Boolean).join("; ")}. The report above has the fix for each.`;
}

function doctorCommand(pipeline: Pipeline, services: GovernorServices, startTimeoutMs: number): GovernorCommand {
  return {
    description: "Check Node, pi, SQLite, what each stage of the preset needs, config files and the preset; print the fix for each failure",
    async handler(_args, ctx) {
      const governor = governorOf(pipeline);
      if (!governor) throw new Error("the governor is still loading; run the doctor again in a moment");
      const results = await runDoctor(defaultDoctorEnvironment({ governor, cwd: ctx.cwd, agentDir: services.agentDir, env: services.env, startTimeoutMs }));
      // A command's UI shows the answer in every mode (stderr in print mode). The report is the
      // answer, not an error: pi's TUI shows an "error" notification as `Error: <text>`, the whole
      // report included. What failed is said on its own line after it, at its level.
      ctx.ui.notify(formatDoctorReport(results).trimEnd(), "info");
      const summary = reportSummary(results);
      if (summary) ctx.ui.notify(summary, reportLevel(results));
    },
  };
}

/** The doctor plugin factory: `doctor()`. */
export const doctor = definePlugin({
  name: DOCTOR_PLUGIN,
  configKey: "doctor",
  description: "The /governor doctor command: checks Node, pi, SQLite, config and preset, and what each stage needs, with the fix for each failure",
  schema: doctorSchema,
  defaults: { startTimeoutMs: DEFAULT_START_TIMEOUT_MS },
  // The start timeout was named after the one server the doctor started itself.
  renamedKeys: { kotaStartTimeoutMs: { to: "startTimeoutMs" } },
  apply(pipeline, config, services) {
    const command = doctorCommand(pipeline, services, config.startTimeoutMs);
    pipeline.registerCommand(DOCTOR_PLUGIN, `${services.commandRoot} doctor`, command);
    if (services.commandRoot !== "governor") pipeline.registerCommand(DOCTOR_PLUGIN, "governor doctor", command);
  },
});

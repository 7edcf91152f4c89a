/**
 * The doctor's own checks: Node, pi, SQLite, the config files and the preset. What a plugin needs
 * (a program that starts, a private folder) the plugin checks itself: each plugin of the preset may
 * contribute `doctorChecks` (core/doctor-check.ts), and {@link runDoctor} runs them in preset order
 * without knowing any plugin by name. Everything the checks touch comes in through
 * {@link DoctorEnvironment}, so each is tested with a planted environment (an old Node, a broken
 * config, a plugin whose check throws).
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE, type DoctorCheckContext, type DoctorCheckResult, type DoctorCheckStatus, type Governor, visible } from "../../core/sdk.ts";
import type { PiInstall } from "../../lib/pi/index.ts";
import type { SqliteProbe } from "../../lib/sqlite/index.ts";

/** ok: fine; warn: works, but not fully; fail: broken, with the fix; skip: not used by this preset. */
export type CheckStatus = DoctorCheckStatus;

/** One line of the doctor's report (the contract plugins' checks return too). */
export type CheckResult = DoctorCheckResult;

/** Everything the checks read or start; {@link defaultDoctorEnvironment} builds the real one. */
export interface DoctorEnvironment extends DoctorCheckContext {
  /** `process.versions.node`. */
  nodeVersion: string;
  /** The installed pi, if any. */
  findPi(): PiInstall | undefined;
  /** The governor whose config, preset, stages and their checks are reported (the session's, or one built for the cwd). */
  governor: Pick<Governor, "preset" | "config" | "plugins" | "problems" | "degraded">;
  /** What SQLite can do here (driver, version, FTS5). */
  probeSqlite(): SqliteProbe;
  /** Opens a database file in a fresh temporary folder, writes to it, closes and removes it; throws on failure. */
  openSqliteFile(): void;
}

/** The lowest Node the package supports (package.json engines). */
export const MIN_NODE = [20, 6] as const;

/** Node: the version, against the supported minimum. */
export function checkNode(env: Pick<DoctorEnvironment, "nodeVersion">): CheckResult {
  const [major = 0, minor = 0] = env.nodeVersion.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  const detail = `${env.nodeVersion} (needs ${MIN_NODE.join(".")} or later)`;
  return ok
    ? { name: "node", status: "ok", detail }
    : { name: "node", status: "fail", detail, fix: `Install Node ${MIN_NODE.join(".")} or later (Node 22.5+ adds the built-in SQLite driver).` };
}

/** How the pi report says where the pi was found. */
const PI_SOURCE: Record<NonNullable<PiInstall["source"]>, string> = {
  running: "the pi running this session",
  path: "the `pi` on PATH",
  beside: "installed in a node_modules folder above pi-governor or the project",
};

/** pi: which version and npm scope is in use, and where it was found (the running pi, or the `pi` on PATH). */
export function checkPi(env: Pick<DoctorEnvironment, "findPi">): CheckResult {
  const pi = env.findPi();
  if (!pi)
    return {
      name: "pi",
      status: "fail",
      detail: "no pi-coding-agent found (under @earendil-works or @mariozechner)",
      fix: "Install pi: npm install -g @earendil-works/pi-coding-agent",
    };
  return { name: "pi", status: "ok", detail: `${pi.scope}/pi-coding-agent ${pi.version} (${pi.dir})${pi.source ? `; ${PI_SOURCE[pi.source]}` : ""}` };
}

/** SQLite: a driver loads, a database file opens, FTS5 is there. */
export function checkSqlite(env: Pick<DoctorEnvironment, "probeSqlite" | "openSqliteFile" | "agentDir">): CheckResult {
  const probe = env.probeSqlite();
  if (!probe.driver) {
    const why = Object.entries(probe.unavailable)
      .map(([d, m]) => `${d}: ${m}`)
      .join("; ");
    return {
      name: "sqlite",
      status: "fail",
      detail: `no SQLite driver loads (${why})`,
      fix: "Use Node 22.5 or later (built-in node:sqlite), or run `npm rebuild better-sqlite3` in the pi-governor folder. Without SQLite the execution log is off; everything else works.",
    };
  }
  try {
    env.openSqliteFile();
  } catch (error) {
    return {
      name: "sqlite",
      status: "fail",
      detail: `${probe.driver} loads but a database file does not open: ${(error as Error).message}`,
      fix: `Check that the temporary directory (TMPDIR) and ${env.agentDir} are writable.`,
    };
  }
  const detail = `${probe.driver} driver, SQLite ${probe.sqliteVersion}, FTS5 ${probe.fts5 ? "yes" : "no"}${probe.fts5 ? `, trigram ${probe.trigram ? "yes" : "no"}` : ""}`;
  if (!probe.fts5)
    return {
      name: "sqlite",
      status: "warn",
      detail,
      fix: "This SQLite has no FTS5: full-text search is off. Use Node 22.5+ (node:sqlite has FTS5) or better-sqlite3.",
    };
  return { name: "sqlite", status: "ok", detail };
}

/** Whether anything (a file, a dangling link, a FIFO) is at `path`. */
function existsOrLink(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Config: which files were found and every problem in them. */
export function checkConfig(env: Pick<DoctorEnvironment, "governor" | "agentDir" | "cwd">): CheckResult[] {
  const { config } = env.governor;
  const global = join(env.agentDir, CONFIG_FILE);
  const project = join(env.cwd, ".pi", CONFIG_FILE);
  const used = config.sources.filter((s) => s !== "defaults");
  // A file that is there but was not used (a link out of the project, a FIFO, broken JSON) is "not used", never "not found".
  const state = (path: string, dir: string) => (used.some((s) => s.startsWith(dir)) ? "found" : existsOrLink(path) ? "not used (see below)" : "not found");
  const detail = `global ${global} ${state(global, env.agentDir)}; project ${project} ${state(project, join(env.cwd, ".pi"))}; sources: ${config.sources.join(" <- ")}`;
  const problems = env.governor.problems();
  if (!problems.length) return [{ name: "config", status: "ok", detail: `${detail}; no problems` }];
  return [
    {
      name: "config",
      status: "fail",
      detail: `${detail}; ${problems.length} problem(s)`,
      fix: "Fix each line below in the file it names (docs/config.md lists every key); until then those keys keep their defaults.",
    },
    ...problems.map((p) => ({ name: "config", status: "fail" as const, detail: p })),
  ];
}

/** Preset: which preset runs and which stages are on, off or failed. */
export function checkPreset(env: Pick<DoctorEnvironment, "governor">): CheckResult[] {
  const { preset, plugins } = env.governor;
  const on = plugins.filter((p) => p.enabled).map((p) => p.plugin.configKey);
  const off = plugins.filter((p) => !p.enabled && !p.failed).map((p) => p.plugin.configKey);
  const failed = plugins.filter((p) => p.failed);
  const results: CheckResult[] = [
    {
      name: "preset",
      status: failed.length ? "fail" : "ok",
      detail: `"${preset.name}"${env.governor.config.preset ? " (chosen by config)" : ""}; on: ${on.join(", ") || "none"}${off.length ? `; off: ${off.join(", ")}` : ""}`,
      ...(failed.length ? { fix: "A stage failed to load (below); fix its config section, then /reload." } : {}),
    },
  ];
  for (const f of failed) results.push({ name: "preset", status: "fail", detail: `${f.plugin.name} [${f.plugin.configKey}] failed: ${f.failed}` });
  for (const line of env.governor.degraded()) results.push({ name: "preset", status: "warn", detail: `degraded at load: ${line}` });
  return results;
}

/** The lines of a check that threw: it failed, and says so, and the other checks run on. */
async function guarded(name: string, run: () => CheckResult | readonly CheckResult[] | Promise<CheckResult | readonly CheckResult[]>): Promise<CheckResult[]> {
  try {
    const r = await run();
    return Array.isArray(r) ? [...(r as readonly CheckResult[])] : [r as CheckResult];
  } catch (error) {
    return [{ name, status: "fail", detail: `the check itself failed: ${(error as Error).message}` }];
  }
}

/**
 * What the preset's plugins check for themselves, in preset order: each plugin's `doctorChecks` with
 * its resolved config section. A plugin the config turned off, or that is off because a service it
 * needs is, gets one `skip` line instead (its checks would test what the session does not use).
 */
export async function checkPlugins(env: DoctorEnvironment): Promise<CheckResult[]> {
  const context: DoctorCheckContext = { cwd: env.cwd, agentDir: env.agentDir, env: env.env, startTimeoutMs: env.startTimeoutMs };
  const results: CheckResult[] = [];
  for (const entry of env.governor.plugins) {
    const checks = entry.plugin.doctorChecks;
    if (!checks) continue;
    const key = entry.plugin.configKey;
    const config = env.governor.config.values.get(key);
    if (!config?.enabled) results.push({ name: key, status: "skip", detail: `${key}.enabled is false` });
    else if (entry.offBecause) results.push({ name: key, status: "skip", detail: `off: ${entry.offBecause}` });
    else results.push(...(await guarded(key, () => checks(config, context))));
  }
  return results;
}

/** Runs every check in order (one failing check never stops the others). */
export async function runDoctor(env: DoctorEnvironment): Promise<CheckResult[]> {
  return [
    ...(await guarded("node", () => checkNode(env))),
    ...(await guarded("pi", () => checkPi(env))),
    ...(await guarded("sqlite", () => checkSqlite(env))),
    ...(await checkPlugins(env)),
    ...(await guarded("config", () => checkConfig(env))),
    ...(await guarded("preset", () => checkPreset(env))),
  ];
}

const LABEL: Record<CheckStatus, string> = { ok: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" };

/** The report as text: one line per check, each fix indented under it, and a last line with the counts. */
export function formatDoctorReport(results: readonly CheckResult[]): string {
  const lines = ["pi-governor doctor"];
  for (const r of results) {
    // Details quote config keys, paths and a server's name and version: shown, never interpreted.
    lines.push(`  ${LABEL[r.status]}  ${visible(r.name)}: ${visible(r.detail)}`);
    if (r.fix) lines.push(`        fix: ${visible(r.fix)}`);
  }
  const failed = results.filter((r) => r.status === "fail").length;
  const warned = results.filter((r) => r.status === "warn").length;
  lines.push(failed || warned ? `${failed} failed, ${warned} warning(s).` : "All checks passed.");
  return `${lines.join("\n")}\n`;
}

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
import type { DoctorCheckContext, DoctorCheckResult, DoctorCheckStatus, Governor } from "../../core/index.ts";
import { CONFIG_FILE } from "../../lib/config/index.ts";
import { visible } from "../../lib/visible/index.ts";
import type { PiInstall } from "../../lib/pi/index.ts";
import { NODE_SQLITE_MIN_VERSION, olderThanVersion as olderThan, type SqliteProbe } from "../../lib/sqlite/index.ts";

/** ok: fine; warn: works, but not fully; fail: broken, with the fix; skip: not used by this preset. */
export type CheckStatus = DoctorCheckStatus;

/** One line of the doctor's report (the contract plugins' checks return too). */
export type CheckResult = DoctorCheckResult;

/** The Node program pi runs on, when the doctor runs in a shell and it is another than the shell's. */
export interface PiNode {
  /** Absolute path (links followed). */
  path: string;
  /** Its version, e.g. "24.21.0"; undefined when it did not answer `--version`. */
  version: string | undefined;
}

/** Everything the checks read or start; {@link defaultDoctorEnvironment} builds the real one. */
export interface DoctorEnvironment extends DoctorCheckContext {
  /** `process.versions.node`: the Node running the checks (pi's in a session, the shell's for `pi-governor doctor`). */
  nodeVersion: string;
  /** The installed pi, if any. */
  findPi(): PiInstall | undefined;
  /**
   * In a shell: the Node the `pi` command on PATH runs with, when that is another program than the
   * one running the checks (read from its link or wrapper script). Absent or undefined in a session.
   */
  piNode?(): PiNode | undefined;
  /** The governor whose config, preset, stages and their checks are reported (the session's, or one built for the cwd). */
  governor: Pick<Governor, "preset" | "config" | "plugins" | "problems" | "degraded">;
  /** What SQLite can do here (driver, version, FTS5). */
  probeSqlite(): SqliteProbe;
  /** Why no SQLite driver loads here, with the fix, or undefined when one does (absent: read from the probe). */
  sqliteFailure?(): { why: string; fix: string } | undefined;
  /** Opens a database file in a fresh temporary folder, writes to it, closes and removes it; throws on failure. */
  openSqliteFile(): void;
}

/** The lowest Node the package supports (package.json engines). */
export const MIN_NODE = [20, 6] as const;

/** Node: the version, against the supported minimum; in a shell also the Node pi runs on, when it is another. */
export function checkNode(env: Pick<DoctorEnvironment, "nodeVersion" | "piNode">): CheckResult {
  const [major = 0, minor = 0] = env.nodeVersion.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  const pi = env.piNode?.();
  const detail = pi
    ? `${env.nodeVersion} runs this command (needs ${MIN_NODE.join(".")} or later); pi runs on Node ${pi.version ?? "of unknown version"} (${pi.path})`
    : `${env.nodeVersion} (needs ${MIN_NODE.join(".")} or later)`;
  return ok
    ? { name: "node", status: "ok", detail }
    : {
        name: "node",
        status: "fail",
        detail,
        fix: `Install Node ${MIN_NODE.join(".")} or later (Node ${NODE_SQLITE_MIN_VERSION} or later has the built-in SQLite driver; pi 1.x needs Node 22.19 or later).`,
      };
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

/** What the stages that keep a SQLite database lose without a driver. */
const WITHOUT_SQLITE = "Without SQLite the execution log and the search index of tool outputs are off; everything else works.";

/**
 * SQLite where pi runs: in a session, this process (a driver loads, a database file opens, FTS5 is
 * there). In a shell whose `pi` runs on another Node, that Node: >= 22.13 has node:sqlite built in,
 * and this shell's own driver matters only to `pi-governor stats` and `search` (which re-run on pi's Node).
 */
export function checkSqlite(
  env: Pick<DoctorEnvironment, "probeSqlite" | "openSqliteFile" | "agentDir"> & Partial<Pick<DoctorEnvironment, "sqliteFailure" | "piNode" | "nodeVersion">>,
): CheckResult {
  const pi = env.piNode?.();
  if (pi?.version) {
    const here = env.probeSqlite().driver;
    const shell = here ? "" : `; this shell's Node ${env.nodeVersion ?? ""} has none, so pi-governor stats and search run on pi's Node`;
    if (!olderThan(pi.version, NODE_SQLITE_MIN_VERSION))
      return { name: "sqlite", status: "ok", detail: `pi's Node ${pi.version} (${pi.path}) has node:sqlite built in, with FTS5${shell}` };
    return {
      name: "sqlite",
      status: "warn",
      detail: `pi runs on Node ${pi.version} (${pi.path}), which needs better-sqlite3 built for it; a shell on Node ${env.nodeVersion ?? ""} cannot load that module to check it`,
      fix: `Run /governor doctor in pi to check it there, or run pi on Node ${NODE_SQLITE_MIN_VERSION} or later (node:sqlite needs no native module). ${WITHOUT_SQLITE}`,
    };
  }
  const probe = env.probeSqlite();
  if (!probe.driver) {
    const unavailable = env.sqliteFailure?.();
    const why =
      unavailable?.why ??
      `no SQLite driver loads (${Object.entries(probe.unavailable)
        .map(([d, m]) => `${d}: ${m}`)
        .join("; ")})`;
    return {
      name: "sqlite",
      status: "fail",
      detail: why,
      fix: `${unavailable ? `${unavailable.fix[0]!.toUpperCase()}${unavailable.fix.slice(1)}.` : `Run pi on Node ${NODE_SQLITE_MIN_VERSION} or later, or rebuild better-sqlite3 (npm rebuild better-sqlite3 in the pi-governor folder).`} ${WITHOUT_SQLITE}`,
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
      fix: `This SQLite has no FTS5: full-text search is off. Use Node ${NODE_SQLITE_MIN_VERSION} or later (node:sqlite has FTS5) or better-sqlite3.`,
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
export function checkPreset(env: Pick<DoctorEnvironment, "governor">, notPis?: string): CheckResult[] {
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
  // `notPis`: the cause of a degradation that holds for this shell's Node only (no SQLite driver here, while pi's Node has one).
  for (const line of env.governor.degraded())
    if (!notPis || !line.startsWith(notPis)) results.push({ name: "preset", status: "warn", detail: `degraded at load: ${line}` });
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
export async function checkPlugins(env: DoctorEnvironment, sqlite?: CheckResult): Promise<CheckResult[]> {
  const context: DoctorCheckContext = {
    cwd: env.cwd,
    agentDir: env.agentDir,
    env: env.env,
    startTimeoutMs: env.startTimeoutMs,
    ...(sqlite?.status === "fail" ? { sqliteUnavailable: sqlite.detail } : {}),
  };
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
  const sqlite = await guarded("sqlite", () => checkSqlite(env));
  return [
    ...(await guarded("node", () => checkNode(env))),
    ...(await guarded("pi", () => checkPi(env))),
    ...sqlite,
    // A stage that needs SQLite says it is off rather than "ok" after a SQLite FAIL.
    ...(await checkPlugins(env, sqlite[0])),
    ...(await guarded("config", () => checkConfig(env))),
    ...(await guarded("preset", () => checkPreset(env, shellOnlySqliteFailure(env, sqlite[0])))),
  ];
}

/**
 * In a shell whose `pi` runs on another Node that has SQLite: this shell's own missing driver, which
 * the governor built here for the report degraded at load, but pi's does not.
 */
function shellOnlySqliteFailure(env: DoctorEnvironment, sqlite: CheckResult | undefined): string | undefined {
  if (!env.piNode || sqlite?.status !== "ok") return undefined;
  try {
    return env.sqliteFailure?.()?.why;
  } catch {
    return undefined;
  }
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

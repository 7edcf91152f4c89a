/**
 * The doctor's checks: each looks at one thing a session needs (Node, pi, Bun and KotaDB, SQLite,
 * the blob cache, the config files, the preset) and, when it fails, says how to fix it. Everything
 * they touch comes in through {@link DoctorEnvironment}, so each check is tested with a planted
 * environment (no Bun, a broken config, an unsafe cache directory).
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE, type Governor, visible } from "../../core/sdk.ts";
import type { BlobDirState } from "../../lib/blobs/index.ts";
import type { SqliteProbe } from "../../lib/sqlite/index.ts";
import type { KotaLaunch } from "../kota/index.ts";
import type { KotaOptions } from "../kota/index.ts";
import { globalConfigFile, missingCommandText, kotaStartHint } from "../kota/index.ts";
import type { PiInstall } from "../../lib/pi/index.ts";

/** ok: fine; warn: works, but not fully; fail: broken, with the fix; skip: not used by this preset. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of the doctor's report. */
export interface CheckResult {
  /** What was checked: `node`, `pi`, `bun`, `kotadb`, `sqlite`, `blob cache`, `config`, `preset`. */
  name: string;
  status: CheckStatus;
  /** What was found. */
  detail: string;
  /** What to do, for warn and fail. */
  fix?: string;
}

/** What KotaDB answered to a bounded start. */
export interface KotaStartReport {
  /** Tools KotaDB listed. */
  tools: number;
  serverVersion?: string;
}

/** Everything the checks read or start; {@link defaultDoctorEnvironment} builds the real one. */
export interface DoctorEnvironment {
  /** `process.versions.node`. */
  nodeVersion: string;
  /** The installed pi, if any. */
  findPi(): PiInstall | undefined;
  cwd: string;
  agentDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The governor whose config, preset and stages are reported (the session's, or one built for the cwd). */
  governor: Pick<Governor, "preset" | "config" | "plugins" | "problems" | "degraded">;
  /** Whether a command resolves to an executable on PATH. */
  commandExists(command: string, pathVar: string | undefined, cwd: string): boolean;
  /** The KotaDB start spec for the kota config (as a session builds it). */
  kotaLaunch(config: KotaOptions): Promise<KotaLaunch>;
  /** Really starts KotaDB with `launch`, waits at most `deadlineMs` for it to answer, and stops it. */
  startKota(launch: KotaLaunch, deadlineMs: number): Promise<KotaStartReport>;
  /** Longest the KotaDB start may take, in milliseconds. */
  kotaDeadlineMs: number;
  /** What SQLite can do here (driver, version, FTS5). */
  probeSqlite(): SqliteProbe;
  /** Opens a database file in a fresh temporary folder, writes to it, closes and removes it; throws on failure. */
  openSqliteFile(): void;
  /** The blob cache directory the blobs config resolves to. */
  blobDir(dirSetting: string): string;
  /** Checks the cache directory without creating it; throws a BlobDirError naming the fix. */
  checkBlobDir(dir: string): Promise<BlobDirState>;
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

/** Bun and KotaDB: the command is on PATH, and KotaDB really starts and lists its tools in time. */
export async function checkKota(env: DoctorEnvironment): Promise<CheckResult[]> {
  const config = env.governor.config.values.get("kota") as (KotaOptions & { enabled: boolean }) | undefined;
  const inPreset = env.governor.plugins.some((p) => p.plugin.configKey === "kota");
  if (!config || !inPreset || !config.enabled) {
    const why = inPreset ? "kota.enabled is false" : `preset "${env.governor.preset.name}" does not use KotaDB`;
    return [{ name: "kotadb", status: "skip", detail: why }];
  }
  const launch = await env.kotaLaunch(config);
  const results: CheckResult[] = [];
  const found = env.commandExists(launch.command, launch.env.PATH ?? env.env.PATH, launch.cwd);
  const commandName = launch.command === "bun" ? "bun" : `kota.command (${launch.command})`;
  if (!found) {
    results.push({
      name: commandName,
      status: "fail",
      detail: `\`${launch.command}\` is not on PATH`,
      fix: missingCommandText(launch.command, globalConfigFile(env.agentDir)),
    });
    results.push({ name: "kotadb", status: "skip", detail: "not started: its command is missing" });
    return results;
  }
  results.push({ name: commandName, status: "ok", detail: `\`${launch.command}\` found on PATH` });
  const line = [launch.command, ...launch.args].join(" ");
  try {
    const report = await env.startKota(launch, env.kotaDeadlineMs);
    results.push({
      name: "kotadb",
      status: "ok",
      detail: `started (\`${line}\`), ${report.tools} tools${report.serverVersion ? `, version ${report.serverVersion}` : ""}; stopped again`,
    });
  } catch (error) {
    results.push(kotaStartFailed(error, launch, env));
  }
  return results;
}

/**
 * The kotadb line for a start that failed: a process that exited says so, with its exit code, its
 * last stderr lines once, and the fix they point to; only a start that ran out of time says "did not
 * start within N s".
 */
function kotaStartFailed(error: unknown, launch: KotaLaunch, env: DoctorEnvironment): CheckResult {
  const e = error as Error & { stderrTail?: string; category?: string };
  // A timeout class says it ran out of time; "exited with code N" / "was killed by" say it ended.
  const timedOut = e.category === "timeout" ? true : /exited with code|was killed by/.test(e.message) ? false : undefined;
  const stderr = e.stderrTail?.trim().split("\n").slice(-3).join(" | ");
  // The start error repeats the stderr tail after "Last stderr:"; it is shown once, below.
  const what = e.message.split(/\.? Last stderr:/)[0]!;
  const detail =
    timedOut === true ? `did not start within ${Math.round(env.kotaDeadlineMs / 1000)} s: ${what}` : timedOut === false ? what : `did not start: ${what}`;
  const fix = kotaStartHint(launch.command, launch.args, globalConfigFile(env.agentDir), {
    ...(e.stderrTail ? { stderrTail: e.stderrTail } : {}),
    ...(timedOut !== undefined ? { timedOut } : {}),
  });
  const slow =
    timedOut !== false && launch.command === "bun" ? " A first `bun x` download can take longer than the doctor waits: run it again once it finished." : "";
  return { name: "kotadb", status: "fail", detail: `${detail}${stderr ? `; stderr: ${stderr}` : ""}`, fix: `${fix}${slow}` };
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

/** The blob cache directory: exists (or will be created) and is private to the user. */
export async function checkCacheDir(env: Pick<DoctorEnvironment, "governor" | "blobDir" | "checkBlobDir">): Promise<CheckResult> {
  const config = env.governor.config.values.get("blobs");
  if (!config?.enabled || !env.governor.plugins.some((p) => p.plugin.configKey === "blobs")) {
    return { name: "blob cache", status: "skip", detail: "the blobs stage is off in this preset" };
  }
  const dir = env.blobDir(String(config.dir));
  try {
    const state = await env.checkBlobDir(dir);
    return {
      name: "blob cache",
      status: "ok",
      detail: state === "ready" ? `${dir} (private to you)` : `${dir} (not created yet; made with mode 700 at first use)`,
    };
  } catch (error) {
    return { name: "blob cache", status: "fail", detail: `${dir} cannot be used`, fix: (error as Error).message };
  }
}

/** Whether the stage with config key `key` runs in this preset. */
const stageOn = (governor: DoctorEnvironment["governor"], key: string) => governor.plugins.some((p) => p.plugin.configKey === key && p.enabled);

/**
 * Blob folders: recall keeps its copies of outputs where `blob_read` reads. Recall writes through
 * the blobs plugin's store (it requires it), so the two share one folder; the line says which.
 */
export function checkBlobFolders(env: Pick<DoctorEnvironment, "governor" | "blobDir">): CheckResult {
  const { governor } = env;
  if (!stageOn(governor, "blobs") || !stageOn(governor, "recall"))
    return { name: "blob folders", status: "skip", detail: "the blobs or the recall stage is off in this preset" };
  const blobsDir = env.blobDir(String(governor.config.values.get("blobs")?.dir));
  return {
    name: "blob folders",
    status: "ok",
    detail: `blobs and recall share ${blobsDir} (recall writes through the blobs plugin's store, where blob_read reads)`,
  };
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

/** Runs every check in order (one failing check never stops the others). */
export async function runDoctor(env: DoctorEnvironment): Promise<CheckResult[]> {
  const guard = async (name: string, run: () => CheckResult | CheckResult[] | Promise<CheckResult | CheckResult[]>): Promise<CheckResult[]> => {
    try {
      const r = await run();
      return Array.isArray(r) ? r : [r];
    } catch (error) {
      return [{ name, status: "fail", detail: `the check itself failed: ${(error as Error).message}` }];
    }
  };
  return [
    ...(await guard("node", () => checkNode(env))),
    ...(await guard("pi", () => checkPi(env))),
    ...(await guard("kotadb", () => checkKota(env))),
    ...(await guard("sqlite", () => checkSqlite(env))),
    ...(await guard("blob cache", () => checkCacheDir(env))),
    ...(await guard("blob folders", () => checkBlobFolders(env))),
    ...(await guard("config", () => checkConfig(env))),
    ...(await guard("preset", () => checkPreset(env))),
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

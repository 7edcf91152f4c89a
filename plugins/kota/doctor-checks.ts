/**
 * What the doctor checks for the kota plugin: the command that starts KotaDB (Bun by default) is on
 * PATH, and KotaDB really starts and lists its tools within the doctor's start timeout (the same
 * start a session does, through lib/mcp's managed server, stopped again at once, its database in a
 * throwaway folder: the doctor writes nothing). Everything the
 * check touches comes in through {@link KotaDoctorEnvironment}, so it is tested with a planted one
 * (no Bun, a KotaDB that exits or never answers).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DoctorCheckContext, DoctorCheckResult } from "../../core/index.ts";
import { gitRoot } from "../../lib/git/index.ts";
import { ManagedMcpServer } from "../../lib/mcp/index.ts";
import type { KotaOptions } from "./config.ts";
import type { KotaLaunch } from "./connection.ts";
import { kotaLaunch } from "./runtime.ts";
import { commandExists, globalConfigFile, kotaStartHint, missingCommandText } from "./runtime-check.ts";

/** What KotaDB answered to a bounded start. */
export interface KotaStartReport {
  /** Tools KotaDB listed. */
  tools: number;
  serverVersion?: string;
}

/** Everything the kota check reads or starts; {@link kotaDoctorChecks} builds the real one. */
export interface KotaDoctorEnvironment {
  agentDir: string;
  /** The environment a session sees (its PATH when the launch sets none). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether a command resolves to an executable on PATH. */
  commandExists(command: string, pathVar: string | undefined, cwd: string): boolean;
  /** The KotaDB start spec for the kota config (as a session builds it). */
  kotaLaunch(config: KotaOptions): Promise<KotaLaunch>;
  /** Really starts KotaDB with `launch`, waits at most `deadlineMs` for it to answer, and stops it. */
  startKota(launch: KotaLaunch, deadlineMs: number): Promise<KotaStartReport>;
  /** Longest the KotaDB start may take, in milliseconds. */
  deadlineMs: number;
}

/**
 * Starts KotaDB with `launch`, waits at most `deadlineMs` for initialize and tools/list, and stops it
 * again (SIGTERM, then SIGKILL): no child outlives the check. Rejects with the start error.
 */
async function startKotaOnce(launch: KotaLaunch, deadlineMs: number): Promise<KotaStartReport> {
  const server = new ManagedMcpServer({
    name: "kota",
    command: launch.command,
    args: launch.args,
    cwd: launch.cwd,
    env: launch.env,
    connectTimeoutMs: deadlineMs,
    installHint: launch.installHint,
    maxReconnectAttempts: 0,
    closeGraceMs: 1_000,
  });
  try {
    await server.start();
    const status = server.status();
    // The server names itself: shown (visible, in the report) at most 200 characters of each part.
    return {
      tools: status.toolCount,
      ...(status.serverVersion ? { serverVersion: `${status.serverVersion.name.slice(0, 200)} ${status.serverVersion.version.slice(0, 200)}` } : {}),
    };
  } finally {
    await server.close();
  }
}

/** Bun and KotaDB: the command is on PATH, and KotaDB really starts and lists its tools in time. */
export async function checkKota(config: KotaOptions, env: KotaDoctorEnvironment): Promise<DoctorCheckResult[]> {
  const launch = await env.kotaLaunch(config);
  const results: DoctorCheckResult[] = [];
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
    const report = await env.startKota(launch, env.deadlineMs);
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
function kotaStartFailed(error: unknown, launch: KotaLaunch, env: KotaDoctorEnvironment): DoctorCheckResult {
  const e = error as Error & { stderrTail?: string; category?: string };
  // A timeout class says it ran out of time; "exited with code N" / "was killed by" say it ended.
  const timedOut = e.category === "timeout" ? true : /exited with code|was killed by/.test(e.message) ? false : undefined;
  const stderr = e.stderrTail?.trim().split("\n").slice(-3).join(" | ");
  // The start error repeats the stderr tail after "Last stderr:"; it is shown once, below.
  const what = e.message.split(/\.? Last stderr:/)[0]!;
  const detail =
    timedOut === true ? `did not start within ${Math.round(env.deadlineMs / 1000)} s: ${what}` : timedOut === false ? what : `did not start: ${what}`;
  const fix = kotaStartHint(launch.command, launch.args, globalConfigFile(env.agentDir), {
    ...(e.stderrTail ? { stderrTail: e.stderrTail } : {}),
    ...(timedOut !== undefined ? { timedOut } : {}),
  });
  const slow =
    timedOut !== false && launch.command === "bun" ? " A first `bun x` download can take longer than the doctor waits: run it again once it finished." : "";
  return { name: "kotadb", status: "fail", detail: `${detail}${stderr ? `; stderr: ${stderr}` : ""}`, fix: `${fix}${slow}` };
}

/** The real environment for the doctor's `context`: this machine's PATH and a real, bounded KotaDB start. */
function kotaDoctorEnvironment(context: DoctorCheckContext, scratchDir: string): KotaDoctorEnvironment {
  return {
    agentDir: context.agentDir,
    env: context.env,
    commandExists,
    kotaLaunch: async (config) => kotaLaunch(config, context.env, context.agentDir, (await gitRoot(context.cwd)) ?? context.cwd, scratchDir),
    startKota: startKotaOnce,
    deadlineMs: context.startTimeoutMs,
  };
}

/** The kota plugin's `doctorChecks`: {@link checkKota} in the real environment. */
export async function kotaDoctorChecks(config: KotaOptions, context: DoctorCheckContext): Promise<DoctorCheckResult[]> {
  // The doctor writes nothing: KotaDB's database for this start lives in a throwaway folder.
  const scratch = mkdtempSync(join(tmpdir(), "pi-governor-doctor-kota-"));
  try {
    return await checkKota(config, kotaDoctorEnvironment(context, scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

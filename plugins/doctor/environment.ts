/**
 * The real {@link DoctorEnvironment}: this machine's Node, pi, PATH, SQLite and file system, and a
 * real, bounded start of KotaDB through lib/mcp's managed server (the same start a session does).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Governor } from "../../core/sdk.ts";
import { checkBlobDir, resolveBlobDir } from "../../lib/blobs/index.ts";
import { ManagedMcpServer } from "../../lib/mcp/index.ts";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { gitRoot } from "../../lib/git/index.ts";
import { commandExists } from "../kota/index.ts";
import { kotaLaunch } from "../kota/index.ts";
import type { DoctorEnvironment, KotaStartReport } from "./checks.ts";
import type { KotaLaunch } from "../kota/index.ts";
import { findPi } from "../../lib/pi/index.ts";
import { packageRoot } from "../../lib/package/index.ts";

/** How long the doctor waits for KotaDB to start and list its tools, in milliseconds. Default 15000. */
export const DEFAULT_KOTA_DEADLINE_MS = 15_000;

/** This package's root folder (pi may be installed beside it). */
const PACKAGE_ROOT = packageRoot();

/**
 * Starts KotaDB with `launch`, waits at most `deadlineMs` for initialize and tools/list, and stops it
 * again (SIGTERM, then SIGKILL): no child outlives the check. Rejects with the start error.
 */
export async function startKotaOnce(launch: KotaLaunch, deadlineMs: number): Promise<KotaStartReport> {
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

/** The real environment for `governor`, built for `cwd`. */
export function defaultDoctorEnvironment(options: {
  governor: Pick<Governor, "preset" | "config" | "plugins" | "problems" | "degraded">;
  cwd: string;
  agentDir: string;
  env: Readonly<Record<string, string | undefined>>;
  kotaDeadlineMs?: number;
  /**
   * Where the doctor runs: `pi` (a command in a pi session: the pi is the one running it) or `shell`
   * (`pi-governor doctor`: the pi is the `pi` on PATH, else one installed beside pi-governor). Default `pi`.
   */
  host?: "pi" | "shell";
}): DoctorEnvironment {
  const { cwd, agentDir, env } = options;
  return {
    nodeVersion: process.versions.node,
    findPi: () =>
      findPi({
        ...(process.argv[1] ? { script: process.argv[1] } : {}),
        from: [PACKAGE_ROOT, cwd],
        ...(env.PATH ? { pathVar: env.PATH } : {}),
        pathFirst: options.host === "shell",
      }),
    cwd,
    agentDir,
    env,
    governor: options.governor,
    commandExists,
    kotaLaunch: async (config) => kotaLaunch(config, env, agentDir, (await gitRoot(cwd)) ?? cwd),
    startKota: startKotaOnce,
    kotaDeadlineMs: options.kotaDeadlineMs ?? DEFAULT_KOTA_DEADLINE_MS,
    probeSqlite: () => probeSqlite({ env: env as NodeJS.ProcessEnv }),
    openSqliteFile: () => {
      const dir = mkdtempSync(join(tmpdir(), "pi-governor-doctor-"));
      try {
        const db = openDatabase(join(dir, "doctor.db"));
        try {
          db.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
        } finally {
          db.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    blobDir: (setting) => resolveBlobDir(setting, { cwd, agentDir }),
    checkBlobDir: (dir) => checkBlobDir(dir, { create: false }),
  };
}

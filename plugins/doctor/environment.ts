/**
 * The real {@link DoctorEnvironment}: this machine's Node, pi, PATH, SQLite and file system. What a
 * plugin's own checks start (a server, bounded by `startTimeoutMs`) they start themselves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Governor } from "../../core/sdk.ts";
import { packageRoot } from "../../lib/package/index.ts";
import { findPi } from "../../lib/pi/index.ts";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import type { DoctorEnvironment } from "./checks.ts";

/** How long a check may wait for a program it starts to answer, in milliseconds. Default 15000. */
export const DEFAULT_START_TIMEOUT_MS = 15_000;

/** This package's root folder (pi may be installed beside it). */
const PACKAGE_ROOT = packageRoot();

/** The real environment for `governor`, built for `cwd`. */
export function defaultDoctorEnvironment(options: {
  governor: Pick<Governor, "preset" | "config" | "plugins" | "problems" | "degraded">;
  cwd: string;
  agentDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Longest a check may wait for a program it starts, in milliseconds. Default {@link DEFAULT_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
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
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
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
  };
}

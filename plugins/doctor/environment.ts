/**
 * The real {@link DoctorEnvironment}: this machine's Node, pi, PATH, SQLite and file system. What a
 * plugin's own checks start (a server, bounded by `startTimeoutMs`) they start themselves.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Governor } from "../../core/index.ts";
import { packageRoot } from "../../lib/package/index.ts";
import { findPi, readPiCommand, untrustedRoots } from "../../lib/pi/index.ts";
import { openDatabase, probeSqlite, sqliteUnavailable } from "../../lib/sqlite/index.ts";
import type { DoctorEnvironment, PiNode } from "./checks.ts";

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
  const untrusted = untrustedRoots(cwd);
  const shell = options.host === "shell";
  return {
    nodeVersion: process.versions.node,
    findPi: () =>
      findPi({
        ...(process.argv[1] ? { script: process.argv[1] } : {}),
        from: [PACKAGE_ROOT, cwd],
        ...(env.PATH ? { pathVar: env.PATH } : {}),
        pathFirst: shell,
        untrusted,
      }),
    // In a session the Node running the checks is pi's own.
    ...(shell ? { piNode: () => piNodeOf(env.PATH, untrusted) } : {}),
    sqliteFailure: () => sqliteUnavailable(env as NodeJS.ProcessEnv),
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

/** Longest `<node> --version` may take, in milliseconds. */
const VERSION_TIMEOUT_MS = 5_000;

/**
 * The Node the `pi` command on PATH runs with, when it is another program than this process's, and
 * its version (it is asked `--version`: lib/pi/command.ts takes it only from outside the project).
 */
function piNodeOf(pathVar: string | undefined, untrusted: readonly string[]): PiNode | undefined {
  const node = readPiCommand(pathVar, untrusted)?.node;
  if (!node) return undefined;
  let self = process.execPath;
  try {
    self = realpathSync(self);
  } catch {
    // compare as given
  }
  if (node === self) return undefined;
  const answer = spawnSync(node, ["--version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS, env: {} });
  const version = /^v(\d+\.\d+\.\d+)/.exec(answer.stdout ?? "")?.[1];
  return { path: node, version };
}

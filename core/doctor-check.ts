/**
 * The contract of the checks a plugin contributes to the doctor (`/governor doctor`,
 * `pi-governor doctor`). A plugin knows what it needs (kota: Bun and a KotaDB that starts; blobs: a
 * private cache folder) and says so in its spec's `doctorChecks`; the doctor runs them beside its own
 * (Node, pi, SQLite, config, preset) without knowing any plugin by name. The contract sits in the
 * kernel, like the CLI command contract, so plugins implement it without importing the doctor.
 */

/** ok: fine; warn: works, but not fully; fail: broken, with the fix; skip: not used by this preset. */
export type DoctorCheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of the doctor's report. */
export interface DoctorCheckResult {
  /** What was checked, short: `node`, `bun`, `kotadb`, `blob cache`, `config`. */
  name: string;
  status: DoctorCheckStatus;
  /** What was found. Shown to the user with control characters made visible. */
  detail: string;
  /** What to do, for warn and fail. */
  fix?: string;
}

/** What a plugin's checks get besides its config section: where and for whom the doctor runs. */
export interface DoctorCheckContext {
  /** The project folder the config was read for. */
  cwd: string;
  /** pi's agent directory (`~/.pi/agent` or `PI_CODING_AGENT_DIR`). */
  agentDir: string;
  /** The environment a session would see (PATH, variables a launch reads). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Longest a check may wait for a program it starts to answer (a server's start and tool list), in
   * milliseconds: `doctor.startTimeoutMs`, default 15000.
   */
  startTimeoutMs: number;
  /**
   * Why no SQLite driver loads for the pi this doctor checks, when the doctor's own SQLite check
   * failed: a stage that needs SQLite reports itself off (`skip`) instead of checking its files.
   */
  sqliteUnavailable?: string;
}

/**
 * A plugin's checks: given its resolved config section and the context, the report lines, in order.
 * The doctor calls them only while the section is enabled and the plugin is not off for a missing
 * service (it writes one `skip` line for such a plugin itself); a throw becomes one `fail` line.
 */
export type DoctorChecks<C> = (config: C, context: DoctorCheckContext) => readonly DoctorCheckResult[] | Promise<readonly DoctorCheckResult[]>;

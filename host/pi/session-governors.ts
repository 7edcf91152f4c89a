import type { Governor } from "../../core/governor.ts";

/** Why a governor was closed without pi ending the session (passed to `sessionShutdown` hooks). */
export const CWD_CHANGE_REASON = "cwd-change";

/**
 * The governor of the session's working directory. pi calls an extension factory before any session
 * exists and tells it nothing about the cwd (the ExtensionAPI has no cwd; the SDK's
 * `createAgentSession({ cwd })` and a `/resume` into another project run in a directory that is not
 * `process.cwd()`), so the factory builds a first governor for a guessed directory and every pi
 * event then asks for the governor of `ctx.cwd`. A different cwd builds a new governor (config
 * layers, KotaDB root and child, autoContext paths, blob dir, MCP servers' default cwd all follow)
 * and closes the old one through its `sessionShutdown` hooks, which stop its child processes.
 */
export class SessionGovernors {
  private current: Governor;
  private currentCwd: string;
  private switching: Promise<Governor> | undefined;
  private switchingTo: string | undefined;

  /**
   * @param first the governor built at load, for `firstCwd`
   * @param build builds the governor of another cwd
   * @param onChange called with each governor built after the first (register its new tools)
   */
  constructor(
    first: Governor,
    firstCwd: string,
    private readonly build: (cwd: string) => Promise<Governor>,
    private readonly onChange: (governor: Governor, previous: Governor) => void | Promise<void>,
  ) {
    this.current = first;
    this.currentCwd = firstCwd;
  }

  /** The governor now in use (the last one built), without switching. */
  get governor(): Governor {
    return this.current;
  }

  /** The directory the current governor was built for. */
  get cwd(): string {
    return this.currentCwd;
  }

  /**
   * The governor for `cwd`: the current one when it matches, else a new one (built once even when
   * several events ask at the same time). A failed build keeps the current governor and rethrows.
   */
  async forCwd(cwd: string, sessionId = ""): Promise<Governor> {
    if (cwd === this.currentCwd) return this.current;
    if (this.switching && this.switchingTo === cwd) return this.switching;
    if (this.switching) await this.switching.catch(() => undefined);
    if (cwd === this.currentCwd) return this.current;
    this.switchingTo = cwd;
    this.switching = (async () => {
      const next = await this.build(cwd);
      const previous = this.current;
      const previousCwd = this.currentCwd;
      this.current = next;
      this.currentCwd = cwd;
      try {
        await previous.pipeline.hooks.sessionShutdown.run({ sessionId, cwd: previousCwd, reason: CWD_CHANGE_REASON });
      } finally {
        await this.onChange(next, previous);
      }
      return next;
    })();
    try {
      return await this.switching;
    } finally {
      this.switching = undefined;
      this.switchingTo = undefined;
    }
  }
}

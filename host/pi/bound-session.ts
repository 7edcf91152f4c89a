/**
 * What every binding of one governor to pi shares: the session's id, the governor of the session's
 * cwd (rebuilt there when the session runs elsewhere: session-governors.ts), attached to the
 * event's context, and its problems shown once per governor.
 */
import type { Governor } from "../../core/governor.ts";
import type { UiBridge } from "../../core/services.ts";
import type { PiApi, PiContext } from "./pi-api.ts";
import { SessionGovernors } from "./session-governors.ts";
import { sessionStoreFrom, uiBridgeFrom } from "./ui-bridge.ts";

/** Footer status key for problems found at load. */
const PROBLEMS_STATUS_KEY = "governor";

/** How a binding follows the session's cwd. */
export interface BindOptions {
  /** The directory `governor` was built for. */
  cwd: string;
  /** Builds the governor of another cwd. Without it the given governor serves every cwd. */
  rebuild?: (cwd: string) => Promise<Governor>;
}

/** The session one binding serves. */
export class BoundSession {
  /** pi's id of the session last attached ("" before the first event). */
  sessionId = "";
  private readonly governors: SessionGovernors;
  private readonly announced = new WeakSet<Governor>();
  private readonly forCwd: (cwd: string) => Promise<Governor>;

  /** @param onChange called with each governor built for another cwd (register its tools and commands) */
  constructor(
    private readonly pi: PiApi,
    first: Governor,
    options: BindOptions,
    onChange: (next: Governor) => void,
  ) {
    this.governors = new SessionGovernors(first, options.cwd, options.rebuild ?? (async () => first), onChange);
    this.forCwd = options.rebuild ? (cwd) => this.governors.forCwd(cwd, this.sessionId) : async () => first;
  }

  /** The governor in use, without switching (what shutting down and commands read). */
  get governor(): Governor {
    return this.governors.governor;
  }

  /** The session's governor, attached to this ctx (id, UI, store), with its problems shown once. */
  async attach(ctx: PiContext): Promise<Governor> {
    const g = await this.forCwd(ctx.cwd);
    this.sessionId = ctx.sessionManager.getSessionId();
    const ui = uiBridgeFrom(ctx);
    g.attachSession(this.sessionId, ui, sessionStoreFrom(this.pi, ctx));
    this.announce(g, ui);
    return g;
  }

  private announce(g: Governor, ui: UiBridge) {
    if (this.announced.has(g)) return;
    this.announced.add(g);
    const problems = g.problems();
    const degraded = g.degraded();
    const lines = [...problems, ...degraded];
    if (!lines.length) return ui.setStatus(PROBLEMS_STATUS_KEY, undefined);
    if (lines.length === 1 && !problems.length) {
      // One thing degraded (a missing SQLite driver, a server that did not start): that line alone.
      ui.notify(`pi-governor: ${lines[0]}`, "warning");
      return ui.setStatus(PROBLEMS_STATUS_KEY, "governor: 1 warning at load (/governor status)");
    }
    const counts = [problems.length ? `${problems.length} config problem(s)` : "", degraded.length ? `${degraded.length} warning(s) at load` : ""]
      .filter(Boolean)
      .join(", ");
    const more = lines.length > 5 ? `\n... and ${lines.length - 5} more` : "";
    ui.notify(`pi-governor: ${counts}; running on the valid parts. /governor status lists them.\n${lines.slice(0, 5).join("\n")}${more}`, "warning");
    ui.setStatus(PROBLEMS_STATUS_KEY, `governor: ${counts} (/governor status)`);
  }
}

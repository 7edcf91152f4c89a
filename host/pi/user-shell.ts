/**
 * The user's shell commands (`!` and `!!`, RPC `bash`, the SDK's `executeBash`) that pi-governor did
 * not see start. pi tells `user_bash` handlers of a command only until one handles it (an extension
 * loaded earlier that returns operations or a result: pi calls no later handler), never of the SDK's
 * `executeBash`, and on pi 0.73 only in interactive mode. What pi does for every command, whoever ran
 * it, is record its result in the session (a `bashExecution` message): at once while pi is idle, and
 * when the run ends while one is going. So the commands `user_bash` announced are counted, and the
 * session's new entries are read: a recorded command no handler announced was run where pi-governor
 * could not see it.
 */

/** Commands announced and not yet recorded, at most; the oldest are dropped beyond it. */
const MAX_ANNOUNCED = 1_024;

/** The part of pi's session manager read here (`getEntries`: every entry, oldest first). */
interface EntryReader {
  getEntries(): ReadonlyArray<{ type?: unknown; message?: unknown }>;
}

/** One binding's user commands: announced by `user_bash`, recorded in the session. */
export class UserShellWatch {
  /** Announced commands not yet recorded, by command text (counted). */
  private readonly announced = new Map<string, number>();
  private announcedCount = 0;
  /** Entries of the session read so far; -1 until the session is known (its past is not new). */
  private read = -1;

  /** `user_bash`: pi-governor saw `command` start. */
  announce(command: string): void {
    if (this.announcedCount >= MAX_ANNOUNCED) {
      this.announced.clear();
      this.announcedCount = 0;
    }
    this.announced.set(command, (this.announced.get(command) ?? 0) + 1);
    this.announcedCount++;
  }

  /** A session starts or is replaced (`/resume`, `/fork`, a new one): the commands it recorded so far are past. */
  reset(sessionManager: unknown): void {
    this.read = entriesOf(sessionManager)?.length ?? -1;
    this.announced.clear();
    this.announcedCount = 0;
  }

  /** How many commands the session recorded since the last look that no `user_bash` announced. */
  unseen(sessionManager: unknown): number {
    const entries = entriesOf(sessionManager);
    if (!entries) return 0;
    if (this.read < 0 || entries.length < this.read) {
      this.read = entries.length;
      return 0;
    }
    let unseen = 0;
    for (let i = this.read; i < entries.length; i++) {
      const message = entries[i]!.type === "message" ? (entries[i]!.message as { role?: unknown; command?: unknown } | undefined) : undefined;
      if (message?.role !== "bashExecution") continue;
      const command = typeof message.command === "string" ? message.command : "";
      const n = this.announced.get(command);
      if (n === undefined) unseen++;
      else {
        if (n > 1) this.announced.set(command, n - 1);
        else this.announced.delete(command);
        this.announcedCount--;
      }
    }
    this.read = entries.length;
    return unseen;
  }
}

function entriesOf(sessionManager: unknown): ReadonlyArray<{ type?: unknown; message?: unknown }> | undefined {
  const sm = sessionManager as Partial<EntryReader> | null;
  if (typeof sm?.getEntries !== "function") return undefined;
  try {
    const entries = sm.getEntries();
    return Array.isArray(entries) ? entries : undefined;
  } catch {
    return undefined;
  }
}

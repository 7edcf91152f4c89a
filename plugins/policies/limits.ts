/**
 * Call limits: counts per turn and per run, per limit rule. A call is counted by every limit whose
 * glob matches it once it is let through; the first limit it would exceed refuses it (or stops the
 * run), and a refused call is not counted.
 */
import type { CallLimit } from "./config.ts";
import { toolGlobMatches } from "./tool-glob.ts";

/** Why a call was refused by a limit, in words the model and the user read. */
export interface LimitBreach {
  /** The message the model gets as the blocked call's result. */
  reason: string;
  /** The run ends after this batch of calls. */
  stop: boolean;
}

/**
 * Counts of one session: reset per turn and per run by the pi events. Once a `stop` limit is hit,
 * every later call of the run is refused the same way: pi ends a run only after a batch in which
 * every call was stopped, so a batch that mixed finished calls with the stopped one gets one more
 * model request, and whatever that asks for is stopped too.
 */
export class CallLimits {
  private turn: number[];
  private run: number[];
  private stopped: LimitBreach | undefined;

  constructor(private readonly limits: readonly CallLimit[]) {
    this.turn = limits.map(() => 0);
    this.run = limits.map(() => 0);
  }

  startTurn(): void {
    this.turn.fill(0);
  }

  startRun(): void {
    this.run.fill(0);
    this.turn.fill(0);
    this.stopped = undefined;
  }

  /** The stop this run reached, if any: every later call of the run is refused with it. */
  get stop(): LimitBreach | undefined {
    return this.stopped;
  }

  /**
   * Admits one call of `toolName`: undefined when every matching limit has room (the call is then
   * counted), or the breach of the first limit it would exceed (nothing is counted). `matches` says
   * whether a limit's glob names the call (default: its name).
   */
  admit(toolName: string, matches: (glob: string) => boolean = (glob) => toolGlobMatches(glob, toolName)): LimitBreach | undefined {
    if (this.stopped) return this.stopped;
    const matching: number[] = [];
    for (let i = 0; i < this.limits.length; i++) {
      const limit = this.limits[i]!;
      if (!matches(limit.tools)) continue;
      const over =
        limit.perTurn !== undefined && this.turn[i]! >= limit.perTurn
          ? breach(limit, i, toolName, "turn", limit.perTurn)
          : limit.perRun !== undefined && this.run[i]! >= limit.perRun
            ? breach(limit, i, toolName, "run", limit.perRun)
            : undefined;
      if (over) {
        if (over.stop) this.stopped = over;
        return over;
      }
      matching.push(i);
    }
    for (const i of matching) {
      this.turn[i]!++;
      this.run[i]!++;
    }
    return undefined;
  }
}

function breach(limit: CallLimit, index: number, toolName: string, scope: "turn" | "run", max: number): LimitBreach {
  const which = limit.tools === "*" ? "tool calls" : `calls of ${limit.tools}`;
  const rule = `policies.limits[${index}]: ${scope === "turn" ? "perTurn" : "perRun"} ${max}`;
  const stop = limit.onExceed === "stop";
  const reason = stop
    ? `Stopped: this ${scope} reached its limit of ${max} ${which} (${rule}); no further call runs until the user's next prompt. Tell the user what is done and what is left.`
    : `Refused: this ${scope} reached its limit of ${max} ${which} (${rule}); ${toolName} did not run. Finish with what you have, or ${scope === "turn" ? "continue in the next turn with fewer calls" : "tell the user what is left"}.`;
  return { reason, stop };
}

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

/** Counts of one session: reset per turn and per run by the pi events. */
export class CallLimits {
  private turn: number[];
  private run: number[];

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
  }

  /**
   * Admits one call of `toolName`: undefined when every matching limit has room (the call is then
   * counted), or the breach of the first limit it would exceed (nothing is counted).
   */
  admit(toolName: string): LimitBreach | undefined {
    const matching: number[] = [];
    for (let i = 0; i < this.limits.length; i++) {
      const limit = this.limits[i]!;
      if (!toolGlobMatches(limit.tools, toolName)) continue;
      if (limit.perTurn !== undefined && this.turn[i]! >= limit.perTurn) return breach(limit, i, toolName, "turn", limit.perTurn);
      if (limit.perRun !== undefined && this.run[i]! >= limit.perRun) return breach(limit, i, toolName, "run", limit.perRun);
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
    ? `Stopped: this ${scope} reached its limit of ${max} ${which} (${rule}); ${toolName} did not run and the run ends here. Tell the user what is done and what is left.`
    : `Refused: this ${scope} reached its limit of ${max} ${which} (${rule}); ${toolName} did not run. Finish with what you have, or ${scope === "turn" ? "continue in the next turn with fewer calls" : "tell the user what is left"}.`;
  return { reason, stop };
}

/**
 * A simulated model that folds finished work (the generator's `folds` option): once the session is
 * long, every 8-14 turns it starts a turn with a `context_fold` call `{ from, to, summary }` naming the
 * first and last tool call ids of a run of finished turns. The run ends before the last 3 finished
 * turns, never contains a turn with a pinned result (kota_impact) or an earlier fold call, and starts
 * after the previous fold; its summary is 400-1,200 characters of the model's own prose.
 */
import type { GenKit } from "./coding-calls.ts";

/** The tool the model calls to fold turns. */
export const FOLD_TOOL = "context_fold";

/** What the generator records of one turn on the active branch. */
export interface TurnRecord {
  turn: number;
  /** First and last tool call ids of the turn. */
  first?: string;
  last?: string;
  calls: number;
  /** The turn holds a pinned result (never folded). */
  pinned: boolean;
  /** The turn holds a fold call (not folded again). */
  folds: boolean;
}

/** A fold the simulated model makes. */
export interface FoldPlan {
  fromTurn: number;
  toTurn: number;
  args: { from: string; to: string; summary: string };
  result: string;
}

/** Turns the model keeps unfolded at the end (finished turns; the current one is not counted). */
const KEEP_FINISHED = 3;
/** No fold before this turn, and no fold of fewer turns than MIN_RUN. */
const FIRST_FOLD_TURN = 16;
const MIN_RUN = 3;

/** Folding cadence and state of one generated session. */
export class ModelFolds {
  private next = FIRST_FOLD_TURN;
  /** Last turn covered by (or skipped before) a fold. */
  private foldedThrough = 0;

  constructor(private readonly kit: GenKit) {}

  /** The fold the model makes at the start of turn `turn`, given the finished turns, or undefined. */
  plan(turn: number, finished: readonly TurnRecord[]): FoldPlan | undefined {
    if (turn < this.next) return undefined;
    this.next = turn + this.kit.between(8, 15);
    const lastFoldable = turn - 1 - KEEP_FINISHED;
    let best: TurnRecord[] = [];
    let run: TurnRecord[] = [];
    for (const r of finished) {
      if (r.turn <= this.foldedThrough || r.turn > lastFoldable) continue;
      if (r.pinned || r.folds || !r.first) run = [];
      else run.push(r);
      if (run.length >= best.length) best = run.slice();
    }
    if (best.length < MIN_RUN) return undefined;
    const fromTurn = best[0]!.turn;
    const toTurn = best[best.length - 1]!.turn;
    this.foldedThrough = toTurn;
    const calls = best.reduce((n, r) => n + r.calls, 0);
    const summary = `Turns ${fromTurn}-${toTurn} (done): ${this.kit.prose(this.kit.between(400, 1200))}`.slice(0, 1200);
    return {
      fromTurn,
      toTurn,
      args: { from: best[0]!.first!, to: best[best.length - 1]!.last!, summary },
      result: `Folded turns ${fromTurn}-${toTurn} (${calls} tool calls) into your summary. The originals are kept and can be restored with unfold.`,
    };
  }
}

/**
 * The live state of one chaos plugin: on/off, the seeded dice, counts per fault type, the record of
 * each injected fault (logger line + `chaos.injected` pipeline event + the call's trace), and the
 * server processes it stopped (resumed on schedule, and all at once on close: nothing is left
 * stopped and no timer outlives the session).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Clock, Logger, Pipeline, ToolCallContext } from "../../core/index.ts";
import type { FaultRule, FaultType } from "./config.ts";
import { seededRandom } from "./random.ts";

/** Plugin name, as taps, logs and events show it. */
export const CHAOS_PLUGIN = "governor:chaos";
/** `name` of the `custom` pipeline event sent for every injected fault. */
export const CHAOS_EVENT = "chaos.injected";

/** One injected fault, as `details.chaos.faults[]` and the event carry it. */
export interface InjectedFault {
  type: FaultType;
  /** Index of the rule in `chaos.faults`. */
  rule: number;
  /** The attempt it hit (1-based). */
  attempt: number;
  /** error: the category raised. */
  category?: string;
  /** latency: the delay; kill/stop: when the signal was sent after the attempt began; stop: also stopMs. */
  ms?: number;
  stopMs?: number;
  /** oversize: bytes appended. */
  bytes?: number;
  /** kill/stop: the server process signalled. */
  pid?: number;
}

/** What the marker layer collects per call: every fault injected in any of its attempts. */
export const callTrace = new AsyncLocalStorage<InjectedFault[]>();

/** A rule matched to one tool. */
export interface MatchedRule {
  rule: FaultRule;
  index: number;
}

/** The chaos plugin's state; one per governor. */
export class ChaosController {
  /** Whether faults are injected now (`/<root> chaos on|off`). */
  active: boolean;
  readonly seed: number;
  private readonly random: () => number;
  private readonly counts = new Map<FaultType, number>();
  private readonly resumes = new Map<number, unknown>();
  private closed = false;

  constructor(
    seed: number,
    active: boolean,
    private readonly deps: { clock: Clock; logger: Logger; pipeline: Pipeline },
  ) {
    this.seed = seed;
    this.active = active;
    this.random = seededRandom(seed);
  }

  /** A uniform number in [0, 1) from the seeded dice. */
  roll(): number {
    return this.random();
  }

  /** The first rule whose dice hit for this attempt (one roll per rule, in order), or undefined. */
  pick(rules: readonly MatchedRule[]): MatchedRule | undefined {
    for (const r of rules) if (r.rule.probability > 0 && this.random() < r.rule.probability) return r;
    return undefined;
  }

  /** Faults injected so far, by type. */
  injectedCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** Total faults injected so far. */
  get injected(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** Server processes stopped now (SIGSTOP sent, SIGCONT pending). */
  get stoppedCount(): number {
    return this.resumes.size;
  }

  /** Records one injected fault: count, log line, `chaos.injected` event and the call's trace. */
  record(call: ToolCallContext, fault: InjectedFault, trace: InjectedFault[] | undefined): void {
    this.counts.set(fault.type, (this.counts.get(fault.type) ?? 0) + 1);
    trace?.push(fault);
    const data = { tool: call.toolName, toolCallId: call.toolCallId, ...fault };
    this.deps.logger.info(`injected ${fault.type}${fault.category ? ` (${fault.category})` : ""} into ${call.toolName} attempt ${fault.attempt}`, data);
    this.deps.pipeline.emit({ type: "custom", source: CHAOS_PLUGIN, name: CHAOS_EVENT, data });
  }

  /**
   * Sends SIGKILL or SIGSTOP to `pid`; a stopped process gets SIGCONT after `stopMs`. False when
   * the process is gone, already stopped by us, or the plugin is closed.
   */
  signal(pid: number, kind: "kill" | "stop", stopMs = 0): boolean {
    if (this.closed || this.resumes.has(pid)) return false;
    try {
      process.kill(pid, kind === "kill" ? "SIGKILL" : "SIGSTOP");
    } catch {
      return false;
    }
    if (kind === "stop")
      this.resumes.set(
        pid,
        this.deps.clock.setTimeout(() => this.resume(pid), stopMs),
      );
    return true;
  }

  private resume(pid: number): void {
    const handle = this.resumes.get(pid);
    if (handle === undefined) return;
    this.deps.clock.clearTimeout(handle);
    this.resumes.delete(pid);
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // Gone meanwhile (killed by the heartbeat or by us): nothing to resume.
    }
  }

  /** Stops injecting and resumes every stopped process now. Idempotent. */
  close(): void {
    this.closed = true;
    this.active = false;
    for (const pid of [...this.resumes.keys()]) this.resume(pid);
  }
}

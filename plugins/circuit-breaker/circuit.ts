/**
 * One circuit: closed -> open (fail fast for a cool-down) -> half-open (one probe) -> closed or open.
 * Pure state over clock milliseconds, no timers: the cool-down is checked when a call arrives.
 */

/** Circuit settings for one key. */
export interface CircuitSettings {
  failureThreshold: number;
  /** 0 = off. */
  failureRatio: number;
  ratioWindow: number;
  cooldownMs: number;
}

/** The state names, as status and events show them. */
export type CircuitState = "closed" | "open" | "half_open";

/** What a call gets when it asks to pass: Pass (closed), Probe (the one half-open trial), Reject (fail fast). */
export const Admission = Object.freeze({ Pass: 0, Probe: 1, Reject: 2 } as const);
/** One of the {@link Admission} values. */
export type Admission = (typeof Admission)[keyof typeof Admission];

/** The state of one circuit (one tool, or one server's tools). */
export class Circuit {
  state: CircuitState = "closed";
  /** Consecutive failures while closed. */
  consecutive = 0;
  /** Failures that opened the circuit last time (for the message). */
  openedAfter = 0;
  /** Clock time the circuit may let a probe through, in milliseconds. */
  openUntil = 0;
  /** The category of the last counted failure. */
  lastFailure = "";
  private probeOut = false;
  /** Outcomes of the last `ratioWindow` calls (true = failure), as a ring. */
  private readonly ring: Uint8Array;
  private ringFill = 0;
  private ringPos = 0;
  private ringFailures = 0;

  constructor(
    readonly key: string,
    readonly settings: CircuitSettings,
  ) {
    this.ring = new Uint8Array(settings.failureRatio > 0 ? settings.ratioWindow : 0);
  }

  /** Asks to run a call at `now`. */
  admit(now: number): Admission {
    if (this.state === "closed") return Admission.Pass;
    if (this.state === "open" && now >= this.openUntil) this.state = "half_open";
    if (this.state === "half_open" && !this.probeOut) {
      this.probeOut = true;
      return Admission.Probe;
    }
    return Admission.Reject;
  }

  /** Milliseconds until a probe may run (0 when one may run now or one is out). */
  retryInMs(now: number): number {
    return Math.max(0, this.openUntil - now);
  }

  /** Records a success. */
  onSuccess(probe: boolean): void {
    if (probe) {
      this.probeOut = false;
      this.state = "closed";
      this.resetRing();
    }
    this.consecutive = 0;
    this.push(false);
  }

  /** Records a counted failure at `now`. Returns true if this failure opened the circuit. */
  onFailure(probe: boolean, category: string, now: number): boolean {
    this.lastFailure = category;
    if (probe) {
      this.probeOut = false;
      this.open(now, this.openedAfter);
      return true;
    }
    if (this.state !== "closed") return false;
    this.consecutive++;
    this.push(true);
    const ratioTrips = this.ring.length > 0 && this.ringFill === this.ring.length && this.ringFailures / this.ringFill >= this.settings.failureRatio;
    if (this.consecutive >= this.settings.failureThreshold || ratioTrips) {
      this.open(now, ratioTrips && this.consecutive < this.settings.failureThreshold ? this.ringFailures : this.consecutive);
      return true;
    }
    return false;
  }

  /** An outcome that says nothing about the server's health (cancelled, invalid input): frees a probe slot. */
  onNeutral(probe: boolean): void {
    if (probe) this.probeOut = false;
  }

  private open(now: number, failures: number): void {
    this.state = "open";
    this.openedAfter = failures;
    this.openUntil = now + this.settings.cooldownMs;
    this.consecutive = 0;
    this.resetRing();
  }

  private push(failed: boolean): void {
    if (this.ring.length === 0) return;
    if (this.ringFill === this.ring.length) this.ringFailures -= this.ring[this.ringPos]!;
    else this.ringFill++;
    this.ring[this.ringPos] = failed ? 1 : 0;
    if (failed) this.ringFailures++;
    this.ringPos = (this.ringPos + 1) % this.ring.length;
  }

  private resetRing(): void {
    this.ring.fill(0);
    this.ringFill = 0;
    this.ringPos = 0;
    this.ringFailures = 0;
  }
}

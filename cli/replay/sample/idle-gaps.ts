/**
 * Idle gaps of the session generator (`idleGaps`): people read the answer, go to a meeting, come back
 * tomorrow. Before a prompt (never the first) the user was away:
 * - with probability 0.28, 5 to 60 minutes (uniform);
 * - with probability 0.03, 1 to 16 hours;
 * - otherwise no gap beyond the generator's seconds between entries.
 * With about 3.5 model calls per turn, about one call in twelve then finds a 5-minute prompt cache
 * cold. The gaps come from their own PRNG (seeded from the session's seed), so a session with gaps
 * has exactly the messages of the same seed without: only the timestamps move.
 */

/** Share of prompts after 5-60 minutes away. */
export const MINUTES_GAP_SHARE = 0.28;
/** Share of prompts after 1-16 hours away. */
export const HOURS_GAP_SHARE = 0.03;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Draws the idle time before each prompt, deterministic per seed. */
export class IdleGaps {
  private state: number;

  constructor(seed: number) {
    // Another stream than the generator's own (which starts from `seed`).
    this.state = (seed ^ 0x5bd1e995) >>> 0;
  }

  private next(): number {
    // mulberry32, as the generator's PRNG.
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Milliseconds the user was away before the next prompt (0 for most prompts). */
  beforePrompt(): number {
    const kind = this.next();
    const amount = this.next();
    if (kind < HOURS_GAP_SHARE) return Math.round(HOUR + amount * 15 * HOUR);
    if (kind < HOURS_GAP_SHARE + MINUTES_GAP_SHARE) return Math.round(5 * MINUTE + amount * 55 * MINUTE);
    return 0;
  }
}

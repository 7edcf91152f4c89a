/**
 * Tiny benchmark harness for `npm run bench`. Every target is reported as a ratio against a baseline
 * measured in the same run, never as an absolute time asserted in a test.
 */

/** One line of the final report. */
export interface BenchRow {
  /** Which bench file produced it. */
  suite: string;
  name: string;
  /** e.g. "12.3 us/call", "4.1 MB peak". */
  value: string;
  /** Ratio against the baseline, when the row has one (value / baseline, or as `note` says). */
  ratio?: number;
  /** What the ratio means and the target, e.g. "x cheaper than cockatiel (target >= 4)". */
  note?: string;
  /** Whether the target was met, when the row has a target. */
  pass?: boolean;
}

/** What a bench file exports as default. */
export type BenchSuite = (report: (row: Omit<BenchRow, "suite">) => void) => Promise<void>;

/**
 * Runs `fn` `iterations` times after `warmup` runs and returns nanoseconds per call (median of
 * `rounds` rounds, to shrug off GC pauses on a shared 2-core machine).
 */
export async function nsPerCall(fn: () => unknown | Promise<unknown>, iterations: number, options: { warmup?: number; rounds?: number } = {}): Promise<number> {
  const warmup = options.warmup ?? Math.min(iterations, 2000);
  for (let i = 0; i < warmup; i++) await fn();
  const rounds = options.rounds ?? 5;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn();
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/**
 * Like {@link nsPerCall}, but CPU time of this process (user + system) instead of wall time: other
 * work on a shared machine does not count. For synchronous work only (an await would not be timed).
 */
export function cpuNsPerCall(fn: () => unknown, iterations: number, options: { warmup?: number; rounds?: number } = {}): number {
  const warmup = options.warmup ?? Math.min(iterations, 2000);
  for (let i = 0; i < warmup; i++) fn();
  const rounds = options.rounds ?? 5;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) fn();
    const used = process.cpuUsage(start);
    samples.push(((used.user + used.system) * 1000) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** Formats nanoseconds as ns/us/ms. */
export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} us`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

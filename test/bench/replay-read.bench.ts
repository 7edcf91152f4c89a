/**
 * `pi-governor replay` reading hostile session files: memory must grow linearly with the file, never
 * with the square of its model calls (each call's context used to be a copy of everything before it).
 * Rows:
 * - heap kept by a parsed session of 20,000 chained model calls against 5,000 (the files are 4x):
 *   linear = 4, target <= 6;
 * - peak heap while reading 2,000,000 `{}` lines against 500,000: nothing is kept of a line that
 *   cannot be used, target <= 2.
 * Heap after a forced collection with the parsed session alive, or sampled while reading (v8's `gc`,
 * exposed for this suite).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseSessionLines } from "../../cli/replay/session-file.ts";
import type { BenchSuite } from "./harness.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const HEADER = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00Z", cwd: "/" });

/** The lines of a session of `n` chained assistant messages (one model call each). */
function* chained(n: number): Generator<string> {
  yield HEADER;
  let prev: string | null = null;
  for (let i = 0; i < n; i++) {
    const id = `e${i}`;
    yield JSON.stringify({
      type: "message",
      id,
      parentId: prev,
      timestamp: "2026-01-01T00:00:00Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "k" }],
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
        stopReason: "stop",
        timestamp: i,
      },
    });
    prev = id;
  }
}

function* empties(n: number): Generator<string> {
  yield HEADER;
  for (let i = 0; i < n; i++) yield "{}";
}

/** The most heap in use (above the start) while `lines` are read and parsed: sampled every 50,000 lines. */
function peakBytes(lines: Iterable<string>): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = 0;
  let n = 0;
  function* sampled(): Generator<string> {
    for (const l of lines) {
      if (++n % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      yield l;
    }
  }
  parseSessionLines(sampled());
  return Math.max(1, peak, process.memoryUsage().heapUsed - before);
}

/** Heap bytes kept while the result of `parse` is alive. */
function keptBytes(parse: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = parse();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Touch the result after measuring, so it is alive during the measure.
  if (kept === undefined) throw new Error("nothing parsed");
  return Math.max(1, after - before);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const suite: BenchSuite = async (report) => {
  const small = keptBytes(() => parseSessionLines(chained(5_000)));
  const large = keptBytes(() => parseSessionLines(chained(20_000)));
  report({
    name: "replay: heap kept by 20,000 chained model calls vs 5,000",
    value: `${mb(large)} vs ${mb(small)}`,
    ratio: large / small,
    note: "linear = 4 (target <= 6)",
    pass: large / small <= 6,
  });
  const fewEmpty = peakBytes(empties(500_000));
  const manyEmpty = peakBytes(empties(2_000_000));
  report({
    name: "replay: peak heap reading 2,000,000 `{}` lines vs 500,000",
    value: `${mb(manyEmpty)} vs ${mb(fewEmpty)}`,
    ratio: manyEmpty / fewEmpty,
    note: "nothing kept per unusable line (target <= 2)",
    pass: manyEmpty / fewEmpty <= 2,
  });
};

export default suite;

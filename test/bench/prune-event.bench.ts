/**
 * Per context event with every default on (the kota preset's prune plugin through a real pipeline:
 * pruning, dedup, stale reads, argument cuts, folding and the fold nudge), on stamped messages
 * growing by one per call: the cost must follow the new messages, not the history. Target: 10,000
 * messages within 2x of 1,000, with fresh deep copies as pi hands them and with the same objects.
 * The 1k and 10k sessions run in alternating blocks of calls, so a busy machine slows both alike; `fold.enabled: false` and the floor of reading one field of each copy
 * are shown beside them.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { governorPolicy } from "../../cli/replay/policies.ts";
import { generateSession } from "../../cli/replay/sample/generate.ts";
import { parseSession } from "../../cli/replay/session-file.ts";
import { kotaPrune } from "../../presets/kota/prune-policy.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const CALLS = 61;

/** A generated session's history with at least `count` messages, cut to `count`. */
function historyOf(count: number): AgentMessageLike[] {
  const requests = parseSession(
    generateSession({ turns: Math.ceil(count / 7) + 2, seed: 42 })
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).requests;
  return requests[requests.length - 1]!.messages.slice(0, count);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Median nanoseconds per context event at each size. Each size runs its calls in blocks (one
 * session's calls follow each other, as in pi), and the blocks alternate between the sizes.
 */
async function perEvent(sizes: readonly number[], copies: boolean, fold: boolean): Promise<number[]> {
  const histories = sizes.map((n) => historyOf(n + CALLS));
  const runs = await Promise.all(sizes.map(() => governorPolicy({ plugin: () => kotaPrune(), fold: { enabled: fold } }).start()));
  // The first call as the later ones: fresh copies, or the very objects the later calls pass.
  for (let s = 0; s < sizes.length; s++) {
    const first = histories[s]!.slice(0, sizes[s]!);
    await runs[s]!(copies ? structuredClone(first) : first);
  }
  const times = sizes.map(() => [] as number[]);
  const block = CALLS;
  for (let from = 1; from <= CALLS; from += block) {
    for (let s = 0; s < sizes.length; s++) {
      for (let r = from; r < Math.min(CALLS + 1, from + block); r++) {
        const list = histories[s]!.slice(0, sizes[s]! + r);
        const input = copies ? structuredClone(list) : list;
        const start = process.hrtime.bigint();
        await runs[s]!(input);
        times[s]!.push(Number(process.hrtime.bigint() - start));
      }
    }
  }
  return times.map(median);
}

/** Median nanoseconds per context event with contextEdits "auto" and "off", their calls interleaved (alternating which goes first). */
async function autoVersusOff(size: number): Promise<[number, number]> {
  const history = historyOf(size + CALLS);
  const [auto, off] = await Promise.all(
    (["auto", "off"] as const).map((contextEdits) => governorPolicy({ plugin: () => kotaPrune(), prune: { contextEdits } }).start()),
  );
  const runs = [auto!, off!];
  for (const run of runs) await run(history.slice(0, size));
  const times: [number[], number[]] = [[], []];
  for (let r = 1; r <= CALLS; r++) {
    const list = history.slice(0, size + r);
    for (const k of r % 2 ? [0, 1] : [1, 0]) {
      const start = process.hrtime.bigint();
      await runs[k]!(list);
      times[k]!.push(Number(process.hrtime.bigint() - start));
    }
  }
  return [median(times[0]), median(times[1])];
}

/** Reading one field of each message of a fresh copy: the floor of any check that looks at each message. */
function copyFloor(count: number): number {
  const history = historyOf(count);
  const times: number[] = [];
  let read = 0;
  for (let r = 0; r < 21; r++) {
    const probe = structuredClone(history);
    const start = process.hrtime.bigint();
    for (const m of probe) if ((m as { timestamp?: unknown }).timestamp !== undefined) read++;
    times.push(Number(process.hrtime.bigint() - start));
  }
  return read >= 0 ? median(times) : 0;
}

const suite: BenchSuite = async (report) => {
  const sizes = [1000, 10_000] as const;
  for (const copies of [false, true]) {
    const how = copies ? "deep copies" : "same objects";
    const [small, large] = await perEvent(sizes, copies, true);
    const [smallOff, largeOff] = await perEvent(sizes, copies, false);
    report({
      name: `context event, every default on, 1k messages + 1 per call (${how})`,
      value: `${formatNs(small!)}/call (fold: false ${formatNs(smallOff!)})`,
    });
    report({
      name: `context event, every default on, 10k messages + 1 per call (${how})`,
      value: `${formatNs(large!)}/call (fold: false ${formatNs(largeOff!)})`,
    });
    const growth = large! / small!;
    report({
      name: `context event, every default on, 10k vs 1k (${how})`,
      value: `${growth.toFixed(2)}x (fold: false ${(largeOff! / smallOff!).toFixed(2)}x)`,
      ratio: growth,
      note: "x the 1k cost (target < 2)",
      pass: growth < 2,
    });
    if (!copies) {
      // pi before 0.87 (no session entries): the context-edit taps must cost nothing that shows.
      const [auto, off] = await autoVersusOff(10_000);
      report({
        name: "context event, 10k (same objects), contextEdits auto on a pi without context edits vs off",
        value: `${formatNs(auto)}/call vs ${formatNs(off)}/call`,
        ratio: auto / off,
        note: "x the cost with contextEdits off (calls interleaved)",
      });
    }
    if (copies) {
      const floor = copyFloor(10_000);
      report({
        name: "context event, every default on, 10k (deep copies) vs reading one field of each copy",
        value: `${formatNs(floor)} to read each fresh copy's timestamp once`,
        ratio: large! / floor,
        note: "x that floor",
      });
    }
  }
};
export default suite;

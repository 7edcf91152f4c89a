/**
 * Pruning bench: per-message cost of the context transform at 100 / 1,000 / 10,000 messages, the
 * incremental cost of one more turn, and on generated 30/100/300-turn sessions the cost of four
 * context policies under both prompt-cache models (shared simulator: cli/replay/simulate.ts).
 * Target: the prune plugin is the cheapest policy under both models, with no prompt over 200k tokens.
 * The step rule on every kind of session, with and without idle gaps, is prune-steps.bench.ts.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { memorySessionStore } from "../../core/services.ts";
import { kotaPrune, kotaPruneDefaults as pruneDefaults } from "../../presets/kota/prune-policy.ts";
import { SessionPruner } from "../../plugins/prune/pruner.ts";
import { clearOldToolResults, governorPolicy, keepLastTurnsEveryRequest, noPruning, type Policy } from "../../cli/replay/policies.ts";
import { type GenerateOptions, generateSession } from "../../cli/replay/sample/generate.ts";
import { parseSession } from "../../cli/replay/session-file.ts";
import { simulate, type SimTotals } from "../../cli/replay/simulate.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const WINDOW = 200_000;
const SYSTEM_TOKENS = 4000;
const usage = { tokens: null, contextWindow: WINDOW, percent: null };

/** The full message history of a generated session with at least `count` messages, cut to `count`. */
function historyOf(count: number): AgentMessageLike[] {
  const lines = generateSession({ turns: Math.ceil(count / 7) + 2, seed: 42 })
    .map((l) => JSON.stringify(l))
    .join("\n");
  const requests = parseSession(lines).requests;
  const all = requests[requests.length - 1]!.messages;
  return all.slice(0, count);
}

function timeNs(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Cold call (fresh pruner), warm call (same history, fresh deep copy as pi sends), and a call that adds one turn. */
function transformCosts(count: number) {
  const history = historyOf(count);
  const lastUser = history.map((m) => m.role).lastIndexOf("user");
  const before = history.slice(0, lastUser);
  const rounds = count >= 10_000 ? 7 : count >= 1000 ? 21 : 101;
  const cold: number[] = [];
  const warm: number[] = [];
  const oneTurn: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const copies = [structuredClone(before), structuredClone(before), structuredClone(history)];
    const pruner = new SessionPruner(pruneDefaults, memorySessionStore);
    cold.push(timeNs(() => pruner.run(copies[0]!, usage)));
    warm.push(timeNs(() => pruner.run(copies[1]!, usage)));
    oneTurn.push(timeNs(() => pruner.run(copies[2]!, usage)));
  }
  return { cold: median(cold), warm: median(warm), oneTurn: median(oneTurn), messages: before.length, added: history.length - before.length };
}

/**
 * Steady state: a warm pruner, then one new message per call (the history grows by one message each
 * time, as in a session). With `copies`, each call gets a fresh deep copy, as pi's extension runner
 * sends (copied outside the timer: the copy is pi's cost; reading each copied message once to
 * recognise it is the pruner's); without, the same message objects plus the new one. Median over the
 * calls, in nanoseconds per call.
 */
function steadyCost(count: number, copies: boolean, calls = 41): { call: number; floor: number } {
  const history = historyOf(count + calls);
  const pruner = new SessionPruner(pruneDefaults, memorySessionStore);
  pruner.run(copies ? structuredClone(history.slice(0, count)) : history.slice(0, count), usage);
  const times: number[] = [];
  const floor: number[] = [];
  for (let r = 1; r <= calls; r++) {
    const copy = copies ? structuredClone(history.slice(0, count + r)) : history.slice(0, count + r);
    times.push(timeNs(() => pruner.run(copy, usage)));
    // The floor of any per-message check: reading one field of each message of a fresh copy.
    const probe = copies ? structuredClone(history.slice(0, count + r)) : history.slice(0, count + r);
    floor.push(
      timeNs(() => {
        let read = 0;
        for (let i = 0; i < probe.length; i++) if ((probe[i] as { timestamp?: unknown }).timestamp !== undefined) read++;
        _sink += read;
      }),
    );
  }
  return { call: median(times), floor: median(floor) };
}
let _sink = 0;

/** A generated session, parsed as the replay reads it. */
const sessionOf = (options: GenerateOptions) =>
  parseSession(
    generateSession(options)
      .map((l) => JSON.stringify(l))
      .join("\n"),
  );

const k = (v: number) => (v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : v >= 1e4 ? `${Math.round(v / 1000)}k` : String(Math.round(v)));

const suite: BenchSuite = async (report) => {
  for (const count of [100, 1000, 10_000]) {
    const c = transformCosts(count);
    report({ name: `context transform, ${k(c.messages)} messages, cold`, value: `${formatNs(c.cold / c.messages)}/message (${formatNs(c.cold)}/call)` });
    report({
      name: `context transform, ${k(c.messages)} messages, warm`,
      value: `${formatNs(c.warm / c.messages)}/message (${formatNs(c.warm)}/call)`,
      ratio: c.warm / c.cold,
      note: "x cold call (deep copy each call, as pi sends)",
    });
    report({
      name: `one more turn (+${c.added} messages) on ${k(c.messages)}`,
      value: `${formatNs(c.oneTurn)}/call`,
      ratio: c.oneTurn / c.cold,
      note: "x cold call on the history (target < 0.5)",
      pass: c.oneTurn / c.cold < 0.5,
    });
  }

  for (const copies of [false, true]) {
    const steady = new Map<number, number>();
    const how = copies ? "deep copies" : "same objects";
    let floor10k = 0;
    for (const count of [100, 1000, 10_000]) {
      const cost = steadyCost(count, copies);
      steady.set(count, cost.call);
      if (count === 10_000) floor10k = cost.floor;
      report({ name: `steady state, ${k(count)} messages + 1 per call (${how})`, value: `${formatNs(cost.call)}/call` });
    }
    const growth = steady.get(10_000)! / steady.get(1000)!;
    report({ name: `steady state 10k vs 1k (${how})`, value: `${growth.toFixed(2)}x`, ratio: growth, note: "x the 1k cost (target < 2)", pass: growth < 2 });
    if (copies) {
      report({
        name: "steady state 10k (deep copies) vs reading one field of each copy",
        value: `${formatNs(floor10k)} to read each fresh copy's timestamp once`,
        ratio: steady.get(10_000)! / floor10k,
        note: "x that floor (any check that looks at each message pays it)",
      });
    }
  }

  const policies: Policy[] = [
    noPruning,
    keepLastTurnsEveryRequest(2),
    clearOldToolResults(100_000, 3, SYSTEM_TOKENS),
    governorPolicy({ name: "pi-governor prune (defaults)", plugin: () => kotaPrune() }),
  ];
  const labels = ["(i) none", "(ii) keep-2 every turn", "(iii) clear>100k keep 3", "(iv) pi-governor"];
  for (const turns of [30, 100, 300]) {
    const session = sessionOf({ turns, seed: 1000 + turns });
    const totals: SimTotals[] = [];
    for (const policy of policies) totals.push((await simulate(session.requests, policy, { systemTokens: SYSTEM_TOKENS, contextWindow: WINDOW })).totals);
    const base = totals[0]!;
    totals.forEach((t, i) => {
      const label = `${turns} turns ${labels[i]}`;
      report({
        name: `${label}: tokens sent`,
        value: `${k(t.tokensSent)} (largest prompt ${k(t.largestPrompt)}, ${t.overWindow} over 200k)`,
        ratio: t.tokensSent / base.tokensSent,
        note: "x (i)",
      });
      report({
        name: `${label}: cost (a) prefix cache`,
        value: `${k(t.costPrefix)} (${t.breaksPrefix} cache breaks)`,
        ratio: t.costPrefix / base.costPrefix,
        note: "x (i)",
      });
      report({
        name: `${label}: cost (b) breakpoint cache`,
        value: `${k(t.costBreakpoint)} (${t.breaksBreakpoint} cache breaks)`,
        ratio: t.costBreakpoint / base.costBreakpoint,
        note: "x (i)",
      });
    });
    const mine = totals[3]!;
    const others = totals.slice(0, 3);
    const cheapestA = others.every((t) => mine.costPrefix < t.costPrefix);
    const cheapestB = others.every((t) => mine.costBreakpoint < t.costBreakpoint);
    report({
      name: `${turns} turns: pi-governor cheapest under both models, no prompt over the window`,
      value: `(a) ${cheapestA ? "cheapest" : "not cheapest"}, (b) ${cheapestB ? "cheapest" : "not cheapest"}, largest ${k(mine.largestPrompt)}`,
      pass: cheapestA && cheapestB && mine.overWindow === 0,
    });
  }
};
export default suite;

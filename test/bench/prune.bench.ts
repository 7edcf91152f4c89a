/**
 * Pruning bench: per-message cost of the context transform at 100 / 1,000 / 10,000 messages, the
 * incremental cost of one more turn, and on generated 30/100/300-turn sessions the cost of four
 * context policies under both prompt-cache models (shared simulator: cli/replay/simulate.ts).
 * Target: the prune plugin is the cheapest policy under both models, with no prompt over 200k tokens.
 *
 * Then the step rule on every kind of session (generate.ts: read-mostly; `coding`: writes, edits,
 * failures, repeated and stale reads; `coding` with `folds`: a model that folds finished turns;
 * `mix: "navigation"`: kota tools; `mix: "logs"`: long bash output), 30/100/300 turns, two seeds,
 * and the bundled sample session as the replay reads it. Each row: the previous release's default
 * step settings, the defaults, the result-only plugin (RESULT_ONLY_PRUNING) and the cheapest timing
 * of the same steps with hindsight (cli/replay/hindsight.ts, any number of steps), as cost shares of no
 * pruning under both cache models, with their cache breaks (reported, not targeted). Targets, under
 * both models: the defaults never cost more than the result-only plugin; at 100 and 300 turns they
 * cost at most 1.10x the hindsight schedule.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessageLike } from "../../core/index.ts";
import { memorySessionStore } from "../../core/index.ts";
import { kotaPrune, kotaPruneDefaults as pruneDefaults } from "../../presets/kota/prune-policy.ts";
import { SessionPruner } from "../../plugins/prune/pruner.ts";
import { clearOldToolResults, governorPolicy, keepLastTurnsEveryRequest, noPruning, type Policy } from "../../cli/replay/policies.ts";
import { type GenerateOptions, generateSession } from "../../cli/replay/sample/generate.ts";
import { parseSession } from "../../cli/replay/session-file.ts";
import { type SimRequest, simulate, type SimTotals } from "../../cli/replay/simulate.ts";
import { compareStepRules, type RelativeCost } from "../../cli/replay/step-comparison.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const WINDOW = 200_000;
const SAMPLE_SESSION = join(dirname(fileURLToPath(import.meta.url)), "../../cli/replay/sample/session.jsonl");
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

  // The step rule on every kind of session, against the previous default step settings, the
  // result-only plugin and the cheapest timing with hindsight, all in this run on the same sessions.
  const kinds: Array<[string, Omit<GenerateOptions, "turns">]> = [
    ["read-mostly", {}],
    ["coding", { coding: true }],
    ["coding+folds", { coding: true, folds: true }],
    ["navigation", { mix: "navigation" }],
    ["logs", { mix: "logs" }],
  ];
  const sim = { systemTokens: SYSTEM_TOKENS, contextWindow: WINDOW, plugin: () => kotaPrune() };
  const worst = { resultOnly: [0, 0], hindsight: [0, 0] };
  const row = async (label: string, requests: SimRequest[], hindsightTarget: boolean) => {
    const c = await compareStepRules(requests, sim);
    const pair = (r: RelativeCost) => `${r.prefix.toFixed(3)}/${r.breakpoint.toFixed(3)}`;
    const breaks = (r: RelativeCost) => `${r.breaksPrefix}/${r.breaksBreakpoint}`;
    const vsResultOnly = [c.now.prefix / c.resultOnly.prefix, c.now.breakpoint / c.resultOnly.breakpoint];
    const vsHindsight = [c.now.prefix / c.hindsight.prefix, c.now.breakpoint / c.hindsight.breakpoint];
    vsResultOnly.forEach((v, i) => (worst.resultOnly[i] = Math.max(worst.resultOnly[i]!, v)));
    if (hindsightTarget) vsHindsight.forEach((v, i) => (worst.hindsight[i] = Math.max(worst.hindsight[i]!, v)));
    const meetsResultOnly = vsResultOnly.every((v) => v <= 1);
    const meetsHindsight = !hindsightTarget || vsHindsight.every((v) => v <= 1.1);
    report({
      name: `${label}: cost vs no pruning, (a) prefix / (b) breakpoint cache`,
      value:
        `previous default ${pair(c.previous)}, defaults ${pair(c.now)}, result-only ${pair(c.resultOnly)}, hindsight ${pair(c.hindsight)}; ` +
        `cache breaks (a)/(b) ${breaks(c.previous)}, ${breaks(c.now)}, ${breaks(c.resultOnly)}, ${breaks(c.hindsight)}; ` +
        `defaults x${vsResultOnly.map((v) => v.toFixed(3)).join("/")} result-only, x${vsHindsight.map((v) => v.toFixed(3)).join("/")} hindsight`,
      ratio: Math.max(...vsResultOnly, ...(hindsightTarget ? vsHindsight : [])),
      note: `defaults x result-only (target <= 1)${hindsightTarget ? " and x hindsight (target <= 1.10)" : ""}, worst of both models`,
      pass: meetsResultOnly && meetsHindsight,
    });
  };
  for (const [kind, options] of kinds) {
    for (const turns of [30, 100, 300]) {
      for (const seed of [1, 2])
        await row(`${turns} turns ${kind}, seed ${seed}`, sessionOf({ turns, seed: seed * 1000 + turns, ...options }).requests, turns >= 100);
    }
  }
  await row("replay of the bundled sample session", parseSession(readFileSync(SAMPLE_SESSION, "utf8")).requests, false);
  report({
    name: "worst defaults x result-only, every class and length",
    value: `(a) x${worst.resultOnly[0]!.toFixed(3)}, (b) x${worst.resultOnly[1]!.toFixed(3)}`,
    ratio: Math.max(...worst.resultOnly),
    note: "target <= 1",
    pass: Math.max(...worst.resultOnly) <= 1,
  });
  report({
    name: "worst defaults x hindsight, 100 and 300 turns",
    value: `(a) x${worst.hindsight[0]!.toFixed(3)}, (b) x${worst.hindsight[1]!.toFixed(3)}`,
    ratio: Math.max(...worst.hindsight),
    note: "target <= 1.10",
    pass: Math.max(...worst.hindsight) <= 1.1,
  });
};
export default suite;

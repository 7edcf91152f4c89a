/**
 * Pruning bench: per-message cost of the context transform at 100 / 1,000 / 10,000 messages, the
 * incremental cost of one more turn, and on generated 30/100/300-turn sessions the cost of four
 * context policies under both prompt-cache models (shared simulator: plugins/prune/replay/simulate.ts).
 * Target: the prune plugin is the cheapest policy under both models, with no prompt over 200k tokens.
 *
 * Then the plugin's defaults against today's plugin (the same preset with RESULT_ONLY_PRUNING: no
 * dedup, stale reads, argument cuts or folding, and the step rule that forces a step every turn
 * above forceStepPercent), on the read-mostly sessions and on generated coding sessions (writes,
 * edits, failures, repeated and stale reads; generate.ts `coding`), with and without a simulated
 * model that folds finished turns (`folds`). Targets on the coding sessions with folds: cost under
 * both cache models at most 0.85x of today's, at 300 turns at most 60 prefix cache breaks, no prompt
 * over the window. Beside each, the cheapest schedule of the same steps chosen with hindsight
 * (replay/hindsight.ts), with at most as many breaks as the defaults and without a limit: how far the
 * online step rule is from the best any rule could do with those breaks.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { memorySessionStore } from "../../core/index.ts";
import { RESULT_ONLY_PRUNING } from "../../plugins/prune/config.ts";
import { kotaPrune, kotaPruneDefaults as pruneDefaults } from "../../presets/kota/prune-policy.ts";
import { SessionPruner } from "../../plugins/prune/pruner.ts";
import { hindsightRuns, STEP_EVERY_REQUEST } from "../../plugins/prune/replay/hindsight.ts";
import { clearOldToolResults, governorPolicy, keepLastTurnsEveryRequest, noPruning, type Policy, resultOnlyPolicy } from "../../plugins/prune/replay/policies.ts";
import { type GenerateOptions, generateSession } from "../../plugins/prune/replay/sample/generate.ts";
import { parseSession } from "../../plugins/prune/replay/session-file.ts";
import { type SimResult, simulate, type SimTotals } from "../../plugins/prune/replay/simulate.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const WINDOW = 200_000;
const SYSTEM_TOKENS = 4000;
const usage = { tokens: null, contextWindow: WINDOW, percent: null };

/** The full message history of a generated session with at least `count` messages, cut to `count`. */
function historyOf(count: number): AgentMessageLike[] {
  const lines = generateSession({ turns: Math.ceil(count / 7) + 2, seed: 42 }).map((l) => JSON.stringify(l)).join("\n");
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
    floor.push(timeNs(() => {
      let read = 0;
      for (let i = 0; i < probe.length; i++) if ((probe[i] as { timestamp?: unknown }).timestamp !== undefined) read++;
      sink += read;
    }));
  }
  return { call: median(times), floor: median(floor) };
}
let sink = 0;

/** A generated session, parsed as the replay reads it. */
const sessionOf = (options: GenerateOptions) => parseSession(generateSession(options).map((l) => JSON.stringify(l)).join("\n"));

/** Today's plugin and the defaults, both with the kota preset's prune settings. */
const todays = resultOnlyPolicy({ name: "today's plugin", plugin: () => kotaPrune() });
const defaults = governorPolicy({ name: "defaults", plugin: () => kotaPrune() });

/** The pruner stepping at every request: each step's view for the hindsight schedules. */
const steppingEveryRequest = governorPolicy({ name: "stepping at every request", plugin: () => kotaPrune(), prune: { ...STEP_EVERY_REQUEST } });

/** Breaks under the breakpoint model that wrote more than half the prompt again (a far-back change; the rest changed only the end). */
const heavyBreaks = (run: SimResult) => run.requests.filter((r) => r.breakpoint.broke && r.breakpoint.writeTokens > r.tokens / 2).length;

const k = (v: number) => (v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : v >= 1e4 ? `${Math.round(v / 1000)}k` : String(Math.round(v)));

const suite: BenchSuite = async (report) => {
  for (const count of [100, 1000, 10_000]) {
    const c = transformCosts(count);
    report({ name: `context transform, ${k(c.messages)} messages, cold`, value: `${formatNs(c.cold / c.messages)}/message (${formatNs(c.cold)}/call)` });
    report({ name: `context transform, ${k(c.messages)} messages, warm`, value: `${formatNs(c.warm / c.messages)}/message (${formatNs(c.warm)}/call)`, ratio: c.warm / c.cold, note: "x cold call (deep copy each call, as pi sends)" });
    report({ name: `one more turn (+${c.added} messages) on ${k(c.messages)}`, value: `${formatNs(c.oneTurn)}/call`, ratio: c.oneTurn / c.cold, note: "x cold call on the history (target < 0.5)", pass: c.oneTurn / c.cold < 0.5 });
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

  const policies: Policy[] = [noPruning, keepLastTurnsEveryRequest(2), clearOldToolResults(100_000, 3, SYSTEM_TOKENS), governorPolicy({ name: "pi-governor prune (defaults)", plugin: () => kotaPrune() })];
  const labels = ["(i) none", "(ii) keep-2 every turn", "(iii) clear>100k keep 3", "(iv) pi-governor"];
  for (const turns of [30, 100, 300]) {
    const session = sessionOf({ turns, seed: 1000 + turns });
    const totals: SimTotals[] = [];
    for (const policy of policies) totals.push((await simulate(session.requests, policy, { systemTokens: SYSTEM_TOKENS, contextWindow: WINDOW })).totals);
    const base = totals[0]!;
    totals.forEach((t, i) => {
      const label = `${turns} turns ${labels[i]}`;
      report({ name: `${label}: tokens sent`, value: `${k(t.tokensSent)} (largest prompt ${k(t.largestPrompt)}, ${t.overWindow} over 200k)`, ratio: t.tokensSent / base.tokensSent, note: "x (i)" });
      report({ name: `${label}: cost (a) prefix cache`, value: `${k(t.costPrefix)} (${t.breaksPrefix} cache breaks)`, ratio: t.costPrefix / base.costPrefix, note: "x (i)" });
      report({ name: `${label}: cost (b) breakpoint cache`, value: `${k(t.costBreakpoint)} (${t.breaksBreakpoint} cache breaks)`, ratio: t.costBreakpoint / base.costBreakpoint, note: "x (i)" });
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

  // The defaults against today's plugin. Labelled by session kind: "read-mostly" (the sessions
  // above), "coding" (coding: true), "coding+folds" (coding: true, folds: true; the model folds).
  const kinds: Array<[string, Omit<GenerateOptions, "turns">, boolean]> = [
    ["read-mostly", {}, false],
    ["coding", { coding: true }, false],
    ["coding+folds", { coding: true, folds: true }, true],
  ];
  for (const [kind, options, targets] of kinds) {
    for (const turns of [30, 100, 300]) {
      const session = sessionOf({ turns, seed: 1000 + turns, ...options });
      const sim = { systemTokens: SYSTEM_TOKENS, contextWindow: WINDOW };
      const todayRun = await simulate(session.requests, todays, sim);
      const nowRun = await simulate(session.requests, defaults, sim);
      const today = todayRun.totals;
      const now = nowRun.totals;
      const label = `${turns} turns ${kind}: defaults vs today's plugin`;
      const a = now.costPrefix / today.costPrefix;
      const b = now.costBreakpoint / today.costBreakpoint;
      const target = (met: boolean) => (targets ? { pass: met } : {});
      report({ name: `${label}, cost (a) prefix cache`, value: `${k(today.costPrefix)} -> ${k(now.costPrefix)}`, ratio: a, note: `x today's${targets ? ", target <= 0.85" : ""}`, ...target(a <= 0.85) });
      report({ name: `${label}, cost (b) breakpoint cache`, value: `${k(today.costBreakpoint)} -> ${k(now.costBreakpoint)}`, ratio: b, note: `x today's${targets ? ", target <= 0.85" : ""}`, ...target(b <= 0.85) });
      report({ name: `${label}, prefix cache breaks`, value: `${today.breaksPrefix} -> ${now.breaksPrefix} (breakpoint model: ${today.breaksBreakpoint} -> ${now.breaksBreakpoint}, of which rewrote over half the prompt: ${heavyBreaks(todayRun)} -> ${heavyBreaks(nowRun)})`, note: targets && turns === 300 ? "target <= 60 at 300 turns" : "", ...(targets && turns === 300 ? { pass: now.breaksPrefix <= 60 } : {}) });
      report({ name: `${label}, prompts over the window`, value: `${today.overWindow} -> ${now.overWindow} (largest ${k(today.largestPrompt)} -> ${k(now.largestPrompt)})`, note: targets ? "target 0" : "", ...target(now.overWindow === 0) });
      report({ name: `${label}, tokens sent`, value: `${k(today.tokensSent)} -> ${k(now.tokensSent)}`, ratio: now.tokensSent / today.tokensSent, note: "x today's" });
      // The same steps scheduled with hindsight: the floor any step rule reaches with as many breaks
      // (at 300 turns also with the 60-break target), and without a limit.
      for (const maxSteps of [now.breaksPrefix, ...(turns === 300 && now.breaksPrefix !== 60 ? [60] : []), undefined]) {
        const best = await hindsightRuns(session.requests, steppingEveryRequest, { ...sim, maxSteps });
        const [ha, hb] = [best.prefix.totals.costPrefix / today.costPrefix, best.breakpoint.totals.costBreakpoint / today.costBreakpoint];
        report({
          name: `${turns} turns ${kind}: cheapest schedule with hindsight, ${maxSteps === undefined ? "any number of breaks" : `at most ${maxSteps} breaks${maxSteps === now.breaksPrefix ? " (as the defaults)" : ""}`}`,
          value: `(a) x${ha.toFixed(3)} with ${best.prefix.totals.breaksPrefix} breaks, (b) x${hb.toFixed(3)} with ${best.breakpoint.totals.breaksBreakpoint} breaks (defaults: x${a.toFixed(3)}, x${b.toFixed(3)})`,
          ratio: hb,
          note: "x today's (b)",
        });
      }
    }
  }

  // The step rule's trade-off, for tuning forceStepFreePercent on 300-turn sessions whose pruned
  // prompt stays above forceStepPercent, where a value of 0 steps on every turn: rarer, larger steps
  // mean fewer cache breaks, but each one changes older turns and so rewrites more of the prompt.
  // Read-mostly: today's plugin with each value; coding+folds: the defaults with each value.
  const sweeps: Array<[string, GenerateOptions, Record<string, unknown>]> = [
    ["read-mostly, today's plugin", { turns: 300, seed: 1300 }, { ...RESULT_ONLY_PRUNING }],
    ["coding+folds, defaults", { turns: 300, seed: 1300, coding: true, folds: true }, {}],
  ];
  const sim = { systemTokens: SYSTEM_TOKENS, contextWindow: WINDOW };
  for (const [what, options, prune] of sweeps) {
    const long = sessionOf(options);
    let baseline: SimTotals | undefined;
    for (const free of [0, 25, 50, 75]) {
      const run = await simulate(long.requests, governorPolicy({ plugin: () => kotaPrune(), prune: { ...prune, forceStepFreePercent: free } }), sim);
      const t = run.totals;
      baseline ??= t;
      report({
        name: `300 turns ${what}, forceStepFreePercent ${free}`,
        value: `${t.breaksPrefix} breaks (${heavyBreaks(run)} rewrote over half the prompt), cost (a) x${(t.costPrefix / baseline.costPrefix).toFixed(3)}, (b) x${(t.costBreakpoint / baseline.costBreakpoint).toFixed(3)}, largest ${k(t.largestPrompt)}, ${t.overWindow} over the window`,
        ratio: t.costBreakpoint / baseline.costBreakpoint,
        note: "cost (b) x the value 0",
      });
    }
  }
};
export default suite;

/**
 * Text output of the replay CLI: a per-turn table, totals with and without pruning, and a small
 * terminal chart of the prompt size per model call. Pure functions from simulation results to text.
 */
import type { RequestResult, SimResult, SimTotals } from "./simulate.ts";

const int = (v: number) => Math.round(v).toLocaleString("en-US");
const kilo = (v: number) => (v >= 10_000 ? `${Math.round(v / 1000)}k` : v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(Math.round(v)));
const pct = (after: number, before: number) => {
  if (before === 0) return "";
  const change = Math.round((after / before - 1) * 100);
  return change === 0 ? "0%" : `${change > 0 ? "+" : ""}${change}%`;
};

function pad(cells: string[], widths: number[], alignLeft = 1): string {
  return cells
    .map((c, i) => (i < alignLeft ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
    .join("  ")
    .trimEnd();
}

/** One row per turn: calls, the last prompt of the turn, breakpoint-model cost, cache breaks. */
export function turnTable(base: SimResult, pruned: SimResult): string {
  const byTurn = new Map<number, { calls: number; base: RequestResult; pruned: RequestResult; costBase: number; costPruned: number; breaks: string[] }>();
  base.requests.forEach((b, i) => {
    const p = pruned.requests[i]!;
    const row = byTurn.get(b.turn) ?? { calls: 0, base: b, pruned: p, costBase: 0, costPruned: 0, breaks: [] };
    row.calls++;
    row.base = b;
    row.pruned = p;
    row.costBase += b.breakpoint.cost;
    row.costPruned += p.breakpoint.cost;
    if (p.prefix.broke || p.breakpoint.broke || p.prefix.cold)
      row.breaks.push(`${p.prefix.cold ? "c" : ""}${p.prefix.broke ? "a" : ""}${p.breakpoint.broke ? "b" : ""}`);
    byTurn.set(b.turn, row);
  });
  const widths = [5, 5, 11, 9, 6, 11, 9, 12];
  // Group labels over their columns: "last prompt" spans columns 2-4, "input cost" columns 5-6.
  const at = (col: number) => widths.slice(0, col).reduce((sum, w) => sum + w + 2, 0);
  const group = (text: string, from: number, to: number, line: string) => {
    const width = at(to + 1) - 2 - at(from);
    return line.padEnd(at(from)) + text.padStart(width);
  };
  const lines = [
    group("input cost, k token-eq. (b)", 5, 6, group("last prompt, tokens", 2, 4, "")),
    pad(["turn", "calls", "no pruning", "pruned", "change", "no pruning", "pruned", "cache breaks"], widths),
  ];
  for (const [turn, r] of byTurn) {
    lines.push(
      pad(
        [
          String(turn),
          String(r.calls),
          int(r.base.tokens),
          int(r.pruned.tokens),
          pct(r.pruned.tokens, r.base.tokens),
          kilo(r.costBase),
          kilo(r.costPruned),
          r.breaks.join(" "),
        ],
        widths,
      ),
    );
  }
  return lines.join("\n");
}

/** A third column for {@link totalsTable}: another policy's totals, shown between the two. */
export interface ComparedTotals {
  label: string;
  totals: SimTotals;
}

/**
 * Totals side by side with the relative change of the second column against the first. With `middle`
 * (another policy), its column comes between them and a "vs <label>" column gives the second column's
 * change against it. Fits 120 columns.
 */
export function totalsTable(base: SimTotals, pruned: SimTotals, labels: [string, string], pricePerMTok: number, middle?: ComparedTotals): string {
  const dollars = (tokens: number) => `$${((tokens * pricePerMTok) / 1e6).toFixed(2)}`;
  const rows: Array<[string, keyof SimTotals, boolean]> = [
    ["tokens sent", "tokensSent", true],
    ["largest prompt", "largestPrompt", true],
    ["prompts over the window", "overWindow", false],
    ["cache breaks (a) prefix", "breaksPrefix", false],
    ["cache breaks (b) breakpoint", "breaksBreakpoint", false],
    ["calls on a cold cache", "coldRequests", false],
    ["cost (a) prefix cache", "costPrefix", true],
    ["cost (b) breakpoint cache", "costBreakpoint", true],
  ];
  const mid = middle ? [middle] : [];
  const widths = [
    28,
    Math.max(12, labels[0].length),
    ...mid.map((m) => Math.max(12, m.label.length)),
    Math.max(12, labels[1].length),
    7,
    ...mid.map(() => 10),
    18,
  ];
  const vs = mid.map((m) => `vs ${m.label.split(" ")[0]}`);
  const lines = [pad(["", labels[0], ...mid.map((m) => m.label), labels[1], "change", ...vs, ""], widths)];
  for (const [name, key, relative] of rows) {
    const a = base[key];
    const b = pruned[key];
    const money = name.startsWith("cost") ? `${dollars(a)} -> ${dollars(b)}` : "";
    const versus = mid.map((m) => (relative ? pct(b, m.totals[key]) : ""));
    lines.push(pad([name, int(a), ...mid.map((m) => int(m.totals[key])), int(b), relative ? pct(b, a) : "", ...versus, money], widths));
  }
  return lines.join("\n");
}

/**
 * What pruning saved, in plain words, beside what the same pruning perfectly timed would have saved
 * (each cache model's cheapest schedule, chosen knowing the whole session: replay/hindsight.ts).
 * `base` and `pruned` are totals over the same sessions as `perfect`; `some` says only some sessions were compared.
 */
export function savingsLine(base: SimTotals, pruned: SimTotals, perfect: { costPrefix: number; costBreakpoint: number }, some = false): string {
  const saved = (after: number, before: number) => `${before > 0 ? Math.round((1 - after / before) * 100) : 0}%`;
  const which = some ? "On the sessions compared, pruning" : "Pruning";
  return (
    `${which} saved ${saved(pruned.costPrefix, base.costPrefix)} of the input cost with a prefix cache (a) and ${saved(pruned.costBreakpoint, base.costBreakpoint)} with a breakpoint cache (b);\n` +
    `the same pruning perfectly timed (knowing each session to its end) would have saved ${saved(perfect.costPrefix, base.costPrefix)} (a) and ${saved(perfect.costBreakpoint, base.costBreakpoint)} (b).`
  );
}

/** How many calls found the cache cold, and the warming refreshes recorded, in plain words. */
export function coldLine(totals: SimTotals, lifetimeSeconds: number): string {
  const warms = totals.warms ? `; ${totals.warms} cache warming refresh(es) pi recorded kept it warm in between (priced at the cached-read price)` : "";
  return `${totals.coldRequests} of ${totals.requests} model calls found the prompt cache cold (more than ${lifetimeSeconds.toLocaleString("en-US")} s after the previous call: written in full whatever was sent)${warms}`;
}

/**
 * A column chart of the prompt size per model call: `█` what pruning sends, `░` what it removed.
 * Calls are bucketed (maximum per bucket) to fit `width` columns.
 */
export function promptChart(base: readonly RequestResult[], pruned: readonly RequestResult[], width = 64, height = 8): string {
  const n = base.length;
  if (!n) return "";
  const columns = Math.min(width, n);
  const colBase: number[] = [];
  const colPruned: number[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * n) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * n) / columns));
    let b = 0;
    let p = 0;
    for (let i = from; i < to; i++) {
      b = Math.max(b, base[i]!.tokens);
      p = Math.max(p, pruned[i]!.tokens);
    }
    colBase.push(b);
    colPruned.push(p);
  }
  const max = Math.max(...colBase, ...colPruned);
  const label = (v: number) => kilo(v).padStart(6);
  const lines: string[] = [];
  for (let row = height; row >= 1; row--) {
    const threshold = (max * (row - 0.5)) / height;
    let line = "";
    for (let c = 0; c < columns; c++) line += colPruned[c]! >= threshold ? "█" : colBase[c]! >= threshold ? "░" : " ";
    const axis = row === height ? label(max) : row === 1 ? label(max / height) : row === Math.ceil(height / 2) ? label((max * row) / height) : "      ";
    lines.push(`${axis} ┤${line}`);
  }
  lines.push(`${" ".repeat(6)} └${"─".repeat(columns)}`);
  lines.push(`${" ".repeat(8)}call 1${" ".repeat(Math.max(1, columns - 6 - String(n).length - 5))}call ${n}`);
  return lines.join("\n");
}

/** One summary line per session file, for directory runs. */
export function fileLine(name: string, turns: number, base: SimTotals, pruned: SimTotals): string {
  return `${name}  ${turns} turns, ${base.requests} calls: sent ${kilo(base.tokensSent)} -> ${kilo(pruned.tokensSent)} (${pct(pruned.tokensSent, base.tokensSent)}), largest ${kilo(base.largestPrompt)} -> ${kilo(pruned.largestPrompt)}, cost a ${pct(pruned.costPrefix, base.costPrefix)}, b ${pct(pruned.costBreakpoint, base.costBreakpoint)}, breaks ${pruned.breaksPrefix}/${pruned.breaksBreakpoint}`;
}

/** Sums totals over several sessions. */
export function addTotals(into: SimTotals, t: SimTotals): SimTotals {
  return {
    requests: into.requests + t.requests,
    tokensSent: into.tokensSent + t.tokensSent,
    largestPrompt: Math.max(into.largestPrompt, t.largestPrompt),
    overWindow: into.overWindow + t.overWindow,
    breaksPrefix: into.breaksPrefix + t.breaksPrefix,
    breaksBreakpoint: into.breaksBreakpoint + t.breaksBreakpoint,
    costPrefix: into.costPrefix + t.costPrefix,
    costBreakpoint: into.costBreakpoint + t.costBreakpoint,
    coldRequests: into.coldRequests + t.coldRequests,
    warms: into.warms + t.warms,
    warmCost: into.warmCost + t.warmCost,
    sideCost: into.sideCost + t.sideCost,
  };
}

export { ZERO_TOTALS } from "./simulate.ts";

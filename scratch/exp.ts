import { PREVIOUS_STEP_DEFAULTS } from "../plugins/prune/config.ts";
import { kotaPrune } from "../presets/kota/prune-policy.ts";
import { hindsightRuns, STEP_EVERY_REQUEST } from "../plugins/prune/replay/hindsight.ts";
import { governorPolicy, noPruning, resultOnlyPolicy } from "../plugins/prune/replay/policies.ts";
import { type GenerateOptions, generateSession } from "../plugins/prune/replay/sample/generate.ts";
import { parseSession } from "../plugins/prune/replay/session-file.ts";
import { simulate } from "../plugins/prune/replay/simulate.ts";

const sim = { systemTokens: 4000, contextWindow: 200_000 };
const sessionOf = (o: GenerateOptions) => parseSession(generateSession(o).map((l) => JSON.stringify(l)).join("\n"));
const kinds: Record<string, Omit<GenerateOptions, "turns">> = {
  read: {}, coding: { coding: true }, folds: { coding: true, folds: true }, nav: { mix: "navigation" }, logs: { mix: "logs" },
};
const which = (process.argv[2] ?? "read,coding,folds,nav,logs").split(",");
const lengths = (process.argv[3] ?? "30,100,300").split(",").map(Number);
const seeds = (process.argv[4] ?? "1").split(",").map(Number);
const candidates: Record<string, Record<string, unknown>> = JSON.parse(process.argv[5] ?? "{}");
const withHindsight = process.argv[6] !== "nohs";
for (const kind of which) for (const turns of lengths) for (const seed of seeds) {
  const t0 = Date.now();
  const s = sessionOf({ turns, seed: seed * 1000 + turns, ...kinds[kind] });
  const none = (await simulate(s.requests, noPruning, sim)).totals;
  const row: string[] = [];
  const r = (t: { costPrefix: number; costBreakpoint: number; breaksPrefix: number }) => `${(t.costPrefix / none.costPrefix).toFixed(3)}/${(t.costBreakpoint / none.costBreakpoint).toFixed(3)} ${t.breaksPrefix}`;
  const ro = (await simulate(s.requests, resultOnlyPolicy({ plugin: () => kotaPrune() }), sim)).totals;
  row.push(`RO ${r(ro)}`);
  const prev = (await simulate(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune: { ...PREVIOUS_STEP_DEFAULTS } }), sim)).totals;
  row.push(`prev ${r(prev)}`);
  for (const [name, prune] of Object.entries(candidates)) {
    const t = (await simulate(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune }), sim)).totals;
    row.push(`${name} ${r(t)}`);
  }
  if (withHindsight) {
    const h = await hindsightRuns(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune: { ...STEP_EVERY_REQUEST } }), sim);
    row.push(`HS ${(h.prefix.totals.costPrefix / none.costPrefix).toFixed(3)}/${(h.breakpoint.totals.costBreakpoint / none.costBreakpoint).toFixed(3)} ${h.prefix.totals.breaksPrefix}/${h.breakpoint.totals.breaksBreakpoint}`);
  }
  console.log(`${kind} ${turns} s${seed} req=${s.requests.length} ${row.join(" | ")} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
}

import { kotaPrune } from "./presets/kota/prune-policy.ts";
import { RESULT_ONLY_PRUNING } from "./plugins/prune/config.ts";
import { governorPolicy } from "./plugins/prune/replay/policies.ts";
import { generateSession } from "./plugins/prune/replay/sample/generate.ts";
import { parseSession } from "./plugins/prune/replay/session-file.ts";
import { simulate } from "./plugins/prune/replay/simulate.ts";
const sim = { systemTokens: 4000, contextWindow: 200_000 };
const variants: Array<[string, Record<string, unknown>]> = JSON.parse(process.argv[2]!);
for (const turns of JSON.parse(process.argv[3] ?? "[30,100,300]")) {
  const s = parseSession(generateSession({ turns, seed: 1000 + turns, coding: true, folds: true } as any).map((l) => JSON.stringify(l)).join("\n"));
  const today = (await simulate(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune: { ...RESULT_ONLY_PRUNING } }), sim)).totals;
  for (const [name, p] of variants) {
    const t = (await simulate(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune: p }), sim)).totals;
    console.log(`${turns} ${name}: a ${(t.costPrefix / today.costPrefix).toFixed(3)} b ${(t.costBreakpoint / today.costBreakpoint).toFixed(3)} breaks ${t.breaksPrefix}/${today.breaksPrefix} over ${t.overWindow} largest ${Math.round(t.largestPrompt/1000)}k`);
  }
}

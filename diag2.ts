import { createGovernor, definePlugin, definePreset } from "./core/index.ts";
import { z } from "zod";
import { kotaPrune } from "./presets/kota/prune-policy.ts";
import { generateSession } from "./plugins/prune/replay/sample/generate.ts";
import { parseSession } from "./plugins/prune/replay/session-file.ts";
import { PrefixCache, RequestPreparer } from "./plugins/prune/replay/cache-model.ts";
const extra = JSON.parse(process.argv[2] ?? "{}");
const s = parseSession(generateSession({ turns: 300, seed: 1300, coding: true, folds: true } as any).map((l) => JSON.stringify(l)).join("\n"));
let last: any;
const spy = definePlugin({ name: "t:spy", configKey: "spy", description: "", schema: z.object({}), defaults: {}, apply(p: any) { p.hooks.event.tap("spy", (e: any) => { if (e.name === "context_pruned") last = e.data; }); } });
const preset = definePreset({ name: "d", description: "", plugins: () => [kotaPrune(), spy()] });
const g = await createGovernor({ preset, cwd: process.cwd(), agentDir: "", env: {}, layers: [], overrides: { prune: extra } });

const usage = { tokens: null, contextWindow: 200_000, percent: null };
const prep = new RequestPreparer(4000); const pc = new PrefixCache();
const causes: Record<string, number> = {};
let prevFolds = 0;
for (const r of s.requests) {
  last = undefined;
  const out = await g.pipeline.hooks.context.run(r.messages, { sessionId: "x", usage });
  const folds = out.filter((m: any) => m.role === "custom").length;
  const o = pc.observe(prep.prepare(out));
  if (o.broke && process.env.V) console.log(r.turn, last?.stepped, last?.mode, last?.sentTokens, last?.rawTokens, last?.percentBefore?.toFixed(0));
  if (o.broke) { const k = last?.stepped ? (folds !== prevFolds ? "step+fold" : `step-${last.mode}`) : folds !== prevFolds ? "fold" : "other"; causes[k] = (causes[k] ?? 0) + 1; }
  prevFolds = folds;
}
console.log(causes);

import { kotaPrune } from "./presets/kota/prune-policy.ts";
import { governorPolicy } from "./plugins/prune/replay/policies.ts";
import { generateSession } from "./plugins/prune/replay/sample/generate.ts";
import { parseSession } from "./plugins/prune/replay/session-file.ts";
import { messageChars } from "./plugins/prune/size.ts";
const s = parseSession(generateSession({ turns: Number(process.env.T ?? 300), seed: 1000 + Number(process.env.T ?? 300), coding: true, folds: true } as any).map((l) => JSON.stringify(l)).join("\n"));
const t = await governorPolicy({ plugin: () => kotaPrune(), prune: JSON.parse(process.env.P ?? "{}") }).start();
let out: any[] = [];
for (const r of s.requests) out = await t(r.messages);
const tally: Record<string, [number, number]> = {};
for (const m of out) {
  let k = m.role;
  if (m.role === "toolResult") k += ":" + m.toolName + (JSON.stringify(m.content).includes("(Pruned)") ? ":pruned" : "");
  if (m.role === "assistant") for (const b of m.content) { const kk = "asst:" + b.type + (b.type==="toolCall" ? ":"+b.name : ""); const c = JSON.stringify(b).length; tally[kk] ??= [0,0]; tally[kk][0]++; tally[kk][1]+=c; }
  else { tally[k] ??= [0,0]; tally[k][0]++; tally[k][1]+= messageChars(m); }
}
console.log(out.length, "messages");
for (const [k,[n,c]] of Object.entries(tally).sort((a,b)=>b[1][1]-a[1][1]).slice(0,25)) console.log(k.padEnd(40), n, c);

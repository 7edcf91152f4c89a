import { kotaPrune } from "../presets/kota/prune-policy.ts";
import { governorPolicy } from "../plugins/prune/replay/policies.ts";
import { generateSession } from "../plugins/prune/replay/sample/generate.ts";
import { parseSession } from "../plugins/prune/replay/session-file.ts";
import { simulate } from "../plugins/prune/replay/simulate.ts";
const s = parseSession(generateSession({ turns: Number(process.env.T), seed: Number(process.env.SEED), ...JSON.parse(process.env.GEN ?? "{}") }).map((l) => JSON.stringify(l)).join("\n"));
await simulate(s.requests, governorPolicy({ plugin: () => kotaPrune(), prune: JSON.parse(process.env.PRUNE ?? "{}") }), {});

/**
 * What pruning costs and saves in a real pi session: the default kota preset over the KotaDB
 * stand-in, a scripted read-mostly session of 40 turns (reads of files of a few KB, `cat`/`grep` in
 * bash, kota_search/kota_usages/kota_deps), every context pi sent to the (faux) model recorded, and
 * priced with the replay's and the bench's own cache models (replay/simulate.ts: system prompt and
 * tools as 4,000 tokens, cached input 0.1x, cache writes 1.25x) beside the same script with pruning off.
 */
import { type FauxResponseStep, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { isPlaceholder } from "../../plugins/prune/placeholder.ts";
import { noPruning } from "../../cli/replay/policies.ts";
import { type SimTotals, simulate } from "../../cli/replay/simulate.ts";
import { assertNoLiveChildren, bigSource, type KotaE2e, startKotaSession, toolResultsIn } from "../helpers/kota-e2e.ts";

let sessions: KotaE2e[] = [];
afterEach(async () => {
  for (const s of sessions) await s.dispose();
  sessions = [];
  assertNoLiveChildren();
});

const TURNS = 40;
const MODULES = 24;

/** 24 modules of 2-5 KB that use the shared utils, so reads weigh something and kota has answers. */
function moduleFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < MODULES; i++) {
    files[`src/lib/mod-${i}.ts`] =
      `import { add } from "../utils/math";\nimport { formatSum } from "../utils/format";\n\nexport function mod${i}Total(x: number): string {\n  return formatSum(add(x, ${i}), ${i});\n}\n${bigSource(`mod${i}`, 2 + (i % 4))}`;
  }
  return files;
}

const calls = (...list: Array<[string, Record<string, unknown>]>) =>
  fauxAssistantMessage(
    list.map(([name, args]) => fauxToolCall(name, args)),
    { stopReason: "toolUse" },
  );

/** One turn: two reads; a bash cat or grep with a kota call; a short answer. Files come back every few turns. */
function turnSteps(t: number): FauxResponseStep[] {
  const file = (k: number) => `src/lib/mod-${k % MODULES}.ts`;
  const kota: Array<[string, Record<string, unknown>]> = [
    ["kota_search", { query: `mod${t % MODULES}Total`, output: "snippet", limit: 10 }],
    ["kota_usages", { symbol: t % 2 ? "add" : "formatSum" }],
    ["kota_deps", { file_path: file(t * 2), direction: "dependencies" }],
  ];
  const bash: [string, Record<string, unknown>] =
    t % 2 ? ["bash", { command: `grep -n "Total\\|filler line 1[0-9]\\b" ${file(t + 7)}` }] : ["bash", { command: `cat ${file(t + 3)}` }];
  return [
    calls(["read", { path: file(t * 2) }], ["read", { path: file(t * 2 + 5) }]),
    calls(bash, kota[t % 3]!),
    fauxAssistantMessage([fauxText(`turn ${t}: looked at ${file(t * 2)}`)]),
  ];
}

interface Run {
  e2e: KotaE2e;
  totals: SimTotals;
}

async function runSession(config: Record<string, unknown>): Promise<Run> {
  // The first turn indexes the repo first (kota answers nothing before that; the UI confirms it).
  const responses = [calls(["kota_index", {}]), ...Array.from({ length: TURNS }, (_, t) => turnSteps(t)).flat()];
  const e2e = await startKotaSession({ files: moduleFiles(), config, responses });
  sessions.push(e2e);
  for (let t = 0; t < TURNS; t++) await e2e.pi.session.prompt(`turn ${t}: what do these modules do?`);
  // Every context pi sent, priced as sent (noPruning: the recorded contexts are already pruned).
  const requests = e2e.pi.contexts.map((messages) => ({
    turn: (messages as Array<{ role?: string }>).filter((m) => m.role === "user").length,
    messages: messages as AgentMessageLike[],
  }));
  const { totals } = await simulate(requests, noPruning);
  return { e2e, totals };
}

/** The lower middle of `values` (0 for none). */
const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]! : 0);

describe("kota e2e: cost of a 40-turn read-mostly session", () => {
  it("the defaults cost less than no pruning under both cache models, with short placeholders", async () => {
    const governed = await runSession({});
    const unpruned = await runSession({ prune: { enabled: false } });
    expect(governed.e2e.pi.contexts.length).toBe(TURNS * 3 + 1);
    expect(unpruned.e2e.pi.contexts.length).toBe(TURNS * 3 + 1);
    // Every call of the script worked (an error would be a short result and flatter the numbers).
    const failed = (unpruned.e2e.pi.contexts.at(-1) as Array<{ role: string; toolName?: string; isError?: boolean }>).filter(
      (m) => m.role === "toolResult" && m.isError,
    );
    expect(failed.map((m) => m.toolName)).toEqual([]);

    const g = governed.totals;
    const u = unpruned.totals;
    const shareA = g.costPrefix / u.costPrefix;
    const shareB = g.costBreakpoint / u.costBreakpoint;
    const placeholders = toolResultsIn(governed.e2e.pi.contexts.at(-1)!).filter((r) => isPlaceholder(r.text));
    const lengths = placeholders.map((r) => r.text.length);
    // The measured numbers, for reading the result (the assertions below decide it).
    process.stdout.write(
      [
        `read-mostly, ${TURNS} turns, ${g.requests} requests`,
        `cost (a) prefix: defaults ${Math.round(g.costPrefix)} / no pruning ${Math.round(u.costPrefix)} = ${shareA.toFixed(3)}`,
        `cost (b) breakpoint: defaults ${Math.round(g.costBreakpoint)} / no pruning ${Math.round(u.costBreakpoint)} = ${shareB.toFixed(3)}`,
        `largest prompt (tokens): defaults ${g.largestPrompt} / no pruning ${u.largestPrompt}`,
        `cache breaks (a)/(b): defaults ${g.breaksPrefix}/${g.breaksBreakpoint}, no pruning ${u.breaksPrefix}/${u.breaksBreakpoint}`,
        `placeholders in the last context: ${lengths.length}, median ${median(lengths)} chars, longest ${Math.max(0, ...lengths)}`,
        "",
      ].join("\n"),
    );

    // Pruning-off grows with every read; the defaults cost less under both models.
    expect(u.largestPrompt).toBeGreaterThan(4000 + 40_000);
    expect(shareA).toBeLessThan(1);
    expect(shareB).toBeLessThan(1);
    expect(g.largestPrompt).toBeLessThan(u.largestPrompt);
    // Pruning happened, and each placeholder, resent on every later request, stays short.
    expect(placeholders.length).toBeGreaterThan(TURNS);
    for (const r of placeholders) expect(r.text.length, r.text).toBeLessThanOrEqual(200);
  }, 120_000);
});

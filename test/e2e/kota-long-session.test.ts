/**
 * Seed 002 acceptance scenarios 2 and 3, in real pi sessions with the default preset over the KotaDB
 * stand-in: a 32-turn session of deps, usages and impact keeps its prompt flat while the same session
 * without pruning grows; and after pruning, the model gets a pruned output back in full (blob_read).
 */
import { type FauxResponseStep, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { assertNoLiveChildren, bigSource, type KotaE2e, requestChars, startKotaSession, toolResultsIn } from "../helpers/kota-e2e.ts";

let sessions: KotaE2e[] = [];
afterEach(async () => {
  for (const s of sessions) await s.dispose();
  sessions = [];
  assertNoLiveChildren();
});

const FEATURES = 40;

/** 40 feature modules that all import the shared utils, so graph answers have some weight (1-3 KB). */
function featureFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FEATURES; i++) {
    files[`src/features/feature-${i}.ts`] =
      `import { add, multiply } from "../utils/math";\nimport { formatSum } from "../utils/format";\nimport { loadConfig } from "../config";\n\nexport function feature${i}(x: number): string {\n  const c = loadConfig();\n  return formatSum(add(x, ${i}), multiply(c.port, ${i}));\n}\n`;
    if (i % 4 === 0)
      files[`tests/features/feature-${i}.test.ts`] =
        `import { feature${i} } from "../../src/features/feature-${i}";\n\nif (!feature${i}(1)) throw new Error("feature${i}");\n`;
  }
  return files;
}

const call = (name: string, args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

/** One turn per entry: a kota call (or a read), then a short answer. */
function turnCalls(): Array<[string, Record<string, unknown>]> {
  const cycle: Array<[string, Record<string, unknown>]> = [
    ["kota_deps", { file_path: "src/utils/math.ts", direction: "dependents", depth: 2, include_tests: true }],
    ["kota_usages", { symbol: "add", include_tests: true }],
    ["kota_deps", { file_path: "src/config.ts", depth: 2 }],
    ["kota_usages", { symbol: "loadConfig" }],
    ["kota_search", { query: "feature", output: "snippet", limit: 20, context_lines: 2 }],
    ["kota_task_context", { files: ["src/utils/format.ts", "src/config.ts"] }],
    ["kota_usages", { symbol: "formatSum", include_tests: true }],
    ["read", { path: "src/generated/big.ts" }],
  ];
  const out: Array<[string, Record<string, unknown>]> = [["kota_index", {}]];
  for (let t = 1; t < 32; t++)
    out.push(
      t % 10 === 5
        ? ["kota_impact", { change_type: "refactor", description: `step ${t}`, files_to_modify: ["src/utils/format.ts"] }]
        : cycle[t % cycle.length]!,
    );
  return out;
}

async function runSession(config: Record<string, unknown>): Promise<{ e2e: KotaE2e; firstRequestChars: number[] }> {
  const turns = turnCalls();
  const responses: FauxResponseStep[] = turns.flatMap(([tool, args], i) => [call(tool, args), fauxAssistantMessage([fauxText(`turn ${i} noted`)])]);
  const e2e = await startKotaSession({ files: { ...featureFiles(), "src/generated/big.ts": bigSource("big", 12) }, config, responses });
  sessions.push(e2e);
  const firstRequestChars: number[] = [];
  for (let i = 0; i < turns.length; i++) {
    const before = e2e.pi.contexts.length;
    await e2e.pi.session.prompt(`turn ${i}: look at ${turns[i]![0]}`);
    firstRequestChars.push(requestChars(e2e.pi.contexts[before]!));
  }
  return { e2e, firstRequestChars };
}

describe("kota e2e: a 32-turn session of deps, usages and impact", () => {
  it("stays flat with the default preset while the unpruned session grows", async () => {
    const governed = await runSession({});
    const unpruned = await runSession({ prune: { enabled: false } });
    const g = governed.firstRequestChars;
    const u = unpruned.firstRequestChars;
    expect(g).toHaveLength(32);

    // Every kota answer that reached the model was under 5 KB.
    for (const m of governed.e2e.pi.session.messages as unknown as Array<{ role: string; toolName?: string; content?: Array<{ text?: string }> }>) {
      if (m.role === "toolResult" && m.toolName?.startsWith("kota_"))
        expect(Buffer.byteLength((m.content ?? []).map((b) => b.text ?? "").join("\n"))).toBeLessThan(5_000);
    }
    // The measured series, for reading the result (the assertions below decide it).
    process.stderr.write(`prompt chars per turn, governed: ${g.join(",")}\nprompt chars per turn, unpruned: ${u.join(",")}\n`);
    // Unpruned grows roughly linearly; governed is a bounded saw-tooth (the boundary steps forward).
    expect(u[31]!).toBeGreaterThan(u[10]! * 2.5);
    expect(g[31]!).toBeLessThan(u[31]! * 0.35);
    const peak = (xs: number[]) => Math.max(...xs);
    expect(peak(g.slice(16))).toBeLessThan(u[31]! * 0.5);
    // Flat: the second half's peak is at most a quarter of the unpruned growth over the same turns above the first half's.
    expect(peak(g.slice(16)) - peak(g.slice(0, 16))).toBeLessThan((u[31]! - u[15]!) / 4);
    // The pinned impact summaries are all still there, in full.
    const last = governed.e2e.pi.contexts.at(-1)!;
    const impacts = toolResultsIn(last).filter((r) => r.toolName === "kota_impact");
    expect(impacts.length).toBe(3);
    for (const r of impacts) expect(r.text).toMatch(/^\[pinned[^\n]*\]\nRisk: /);
  }, 120_000);

  it("after pruning the model gets the full output back with blob_read", async () => {
    const e2e = await startKotaSession({
      files: { "src/generated/big.ts": bigSource("big", 40) },
      // Prune as soon as the read is out of the last two turns (the defaults wait for a bigger, cache-worthy step).
      config: { prune: { cacheAware: false, minStepTokens: 0, minStepPercent: 0 } },
      responses: [
        call("read", { path: "src/generated/big.ts" }),
        fauxAssistantMessage([fauxText("read it")]),
        fauxAssistantMessage([fauxText("ok 1")]),
        fauxAssistantMessage([fauxText("ok 2")]),
        // The model finds the pruned read's blob id in its context and asks for the end of the output.
        (context) => {
          const placeholder = toolResultsIn(context.messages as unknown[]).find((r) => r.toolName === "read")!.text;
          const blobId = /"blobId":"([0-9a-f]{12})"/.exec(placeholder)?.[1] ?? "missing";
          return fauxAssistantMessage([fauxToolCall("blob_read", { blobId, grep: "END-OF-big" })], { stopReason: "toolUse" });
        },
        fauxAssistantMessage([fauxText("found the end")]),
      ],
    });
    sessions.push(e2e);
    await e2e.pi.session.prompt("read src/generated/big.ts");
    await e2e.pi.session.prompt("next");
    await e2e.pi.session.prompt("next again");
    await e2e.pi.session.prompt("what is at the end of that file?");
    const results = toolResultsIn(e2e.pi.contexts.at(-1)!);
    expect(results[0]!.text).toMatch(/^\(Pruned\) read\(path="src\/generated\/big.ts"\)/);
    const back = results.find((r) => r.toolName === "blob_read")!;
    expect(back.text).toMatch(/END-OF-big/);
    // The blob holds the whole original read output: its size is the file's size plus read's own framing.
    expect(back.text).toMatch(/\[blob [0-9a-f]+…: 4\d,\d{3} bytes\]/);
  });
});

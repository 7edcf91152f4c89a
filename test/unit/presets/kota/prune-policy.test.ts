/**
 * The kota preset's pruning, through its public surface: the prune plugin `kotaPrune()` builds, run
 * on a message list the way pi sends one. Its placeholders name the kota_* calls with their key
 * arguments first and say how to get each answer back.
 */
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { memorySessionStore } from "../../../../core/services.ts";
import { kotaPrune, kotaPruneDefaults } from "../../../../presets/kota/index.ts";

const NEVER_WAIT = { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false };

/** One turn: a user question, one call of `tool` with `args`, its 5,000-character answer, a reply. */
function turn(t: number, tool: string, args: Record<string, unknown>): AgentMessageLike[] {
  return [
    { role: "user", content: [{ type: "text", text: `q${t}` }], timestamp: t * 10 },
    { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: tool, arguments: args }], timestamp: t * 10 + 1 },
    { role: "toolResult", toolCallId: `c${t}`, toolName: tool, content: [{ type: "text", text: "y".repeat(5_000) }], isError: false, timestamp: t * 10 + 2 },
    { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: t * 10 + 3 },
  ];
}

/** The text each old tool result was replaced by when the kota preset's prune plugin ran. */
async function placeholders(calls: Array<[string, Record<string, unknown>]>): Promise<string[]> {
  const preset = definePreset({ name: "t", description: "", commandRoot: "kota", plugins: () => [kotaPrune(NEVER_WAIT)] });
  const g = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {} });
  g.attachSession("s1", { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false }, memorySessionStore());
  // Recent turns stay whole: pad with read turns so every call under test is old.
  const padding = Array.from({ length: kotaPruneDefaults.keepRecentTurns + 1 }, (_, i) => turn(100 + i, "read", { path: `pad${i}` })).flat();
  const out = await g.pipeline.hooks.context.run([...calls.flatMap(([tool, args], i) => turn(i + 1, tool, args)), ...padding], { sessionId: "s1" });
  return out
    .filter((m, i) => m.role === "toolResult" && i < calls.length * 4)
    .map((m) => (m.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join(""));
}

describe("the kota preset's prune policy", () => {
  it("writes kota_search placeholders with the query first and how to re-run it narrower", async () => {
    const [text] = await placeholders([["kota_search", { limit: 20, output: "snippet", query: "auth context", scope: ["code"] }]]);
    expect(text).toBe(
      '(Pruned) kota_search(query="auth context", scope=["code"], output="snippet", limit=20) [5,000 chars] Re-run it with a narrower query/glob.',
    );
  });

  it("puts each kota tool's key arguments first, in the order the preset names them", async () => {
    const texts = await placeholders([
      ["kota_deps", { depth: 2, direction: "both", file_path: "src/a.ts" }],
      ["kota_usages", { file: "src/a.ts", symbol: "login" }],
      ["kota_task_context", { extra: true, files: ["src/a.ts"] }],
    ]);
    expect(texts).toEqual([
      '(Pruned) kota_deps(file_path="src/a.ts", direction="both", depth=2) [5,000 chars] Re-run it narrower.',
      '(Pruned) kota_usages(symbol="login", file="src/a.ts") [5,000 chars] Re-run it narrower.',
      '(Pruned) kota_task_context(files=["src/a.ts"], extra=true) [5,000 chars] Re-run it narrower.',
    ]);
  });
});

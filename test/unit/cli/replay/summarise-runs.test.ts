import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";
import { simulate } from "../../../../cli/replay/simulate.ts";
import { summariseEachRun } from "../../../../cli/replay/summarise-runs.ts";
import { noPruning } from "../../../../cli/replay/policies.ts";

const text = (m: AgentMessageLike) => JSON.stringify(m.content);

function run(t: number, chars = 5000): AgentMessageLike[] {
  return [
    { role: "user", content: [{ type: "text", text: `q${t}` }] },
    { role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}` } }] },
    { role: "toolResult", toolCallId: `c${t}`, toolName: "read", content: [{ type: "text", text: "y".repeat(chars) }], isError: false },
    { role: "assistant", content: [{ type: "text", text: `done ${t}` }] },
  ] as AgentMessageLike[];
}

describe("summarise each run", () => {
  it("replaces a finished run's tool results with stubs and adds one hidden summary after it; the run in progress stays whole", async () => {
    const transform = await summariseEachRun().start();
    const history = [...run(1), ...run(2), ...run(3).slice(0, 3)];
    const out = await transform(history);
    // Runs 1 and 2 are finished (a prompt came after each); run 3 is in progress.
    expect(out).toHaveLength(history.length + 2);
    expect(text(out[2]!)).toContain('context_tree_query({\\"toolCallIds\\":[\\"c1\\"]})');
    expect(out[1]).toBe(history[1]); // tool calls stay
    expect(out[4]).toMatchObject({ role: "custom", customType: "context-prune-summary", display: false });
    expect((out[4]!.content as string).length).toBe(60 + 220);
    expect(out.slice(-3)).toEqual(history.slice(-3));
    // Summarised once: the next request sends the same objects for them (the prompt cache holds).
    const again = await transform([...history, { role: "assistant", content: [] } as AgentMessageLike, ...run(4).slice(0, 1)]);
    expect(again[2]).toBe(out[2]);
    expect(again[4]).toBe(out[4]);
    // The summariser's calls: the serialized batches written to the cache, the summaries at the output price.
    expect(transform.takeSideCost!()).toBeGreaterThan(2 * (5000 / 4) * 1.25);
    expect(transform.takeSideCost!()).toBe(0);
  });

  it("keeps a run whose summary would be longer than its results", async () => {
    const transform = await summariseEachRun().start();
    const history = [...run(1, 100), ...run(2)];
    const out = await transform(history);
    expect(out).toEqual(history);
    expect(transform.takeSideCost!()).toBe(0);
  });

  it("costs less than sending everything on a generated session, its summariser included", async () => {
    const requests = parseSession(
      generateSession({ turns: 40, seed: 5 })
        .map((l) => JSON.stringify(l))
        .join("\n"),
    ).requests;
    const all = (await simulate(requests, noPruning)).totals;
    const summarised = (await simulate(requests, summariseEachRun())).totals;
    expect(summarised.sideCost).toBeGreaterThan(0);
    expect(summarised.costPrefix).toBeLessThan(all.costPrefix);
    expect(summarised.costBreakpoint).toBeLessThan(all.costBreakpoint);
  });
});

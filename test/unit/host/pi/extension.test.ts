/**
 * The pi adapter's `turn_end` boundary binding (the rest of the adapter is proven in real pi
 * sessions, test/e2e): context edits run only on a pi whose `turn_end` takes entries, the entries
 * proposed so far are kept, and nothing is returned when no tap adds anything; which handlers the
 * adapter registers, one per event and concern.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bindGovernor, createGovernor } from "pi-governor/host";
import { definePlugin, definePreset } from "pi-governor";
import { fakePi } from "pi-governor/testing";

async function bound(draft: boolean) {
  const seen: unknown[] = [];
  const turnEnds: number[] = [];
  const plugin = definePlugin({
    name: "test:edits",
    configKey: "testEdits",
    description: "",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.turnEnd.tap({ name: "test:edits" }, (info) => void turnEnds.push(info.turnIndex));
      pipeline.hooks.contextEdits.tap({ name: "test:edits" }, (drafts, info) => {
        seen.push(info.entries());
        return draft ? [...drafts, { type: "context_edit", targetId: "m1", replacement: { content: [{ type: "text", text: "short" }] } }] : drafts;
      });
    },
  });
  const preset = definePreset({ name: "t", description: "", plugins: () => [plugin()] });
  const governor = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [] });
  const { pi, handlers } = fakePi();
  bindGovernor(pi, governor, { cwd: "/tmp" });
  const branch = [{ type: "message", id: "m1", message: { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: "long" }], timestamp: 1 } }];
  const ctx = (projection: boolean) => ({
    cwd: "/tmp",
    hasUI: false,
    ui: { notify: () => {}, setStatus: () => {}, confirm: async () => false },
    sessionManager: {
      getSessionId: () => "s1",
      getEntries: () => branch,
      getBranch: () => branch,
      ...(projection ? { buildSessionProjection: () => ({}) } : {}),
    },
  });
  /** Every turn_end handler's answer, as pi chains them. */
  const turnEnd = async (event: Record<string, unknown>, projection = true) => {
    const answers: unknown[] = [];
    for (const h of handlers.get("turn_end") ?? []) answers.push(await h({ type: "turn_end", turnIndex: 0, toolResults: [], ...event }, ctx(projection)));
    return answers.filter((a) => a !== undefined);
  };
  return { turnEnd, seen, turnEnds, handlers };
}

const proposed = [{ type: "custom", customType: "other-extension", data: {} }];
const boundary = { entries: proposed, continue: false, context: { contextEntries: [] }, outcome: "completed" };

describe("turn_end as the context-edit boundary", () => {
  it("appends the drafts after the entries proposed so far, with the session's entries and the pending edits", async () => {
    const { turnEnd, seen } = await bound(true);
    const answers = await turnEnd({ ...boundary, entries: [...proposed, { type: "context_edit", targetId: "m1", replacement: null }] });
    expect(answers).toEqual([
      {
        entries: [
          ...proposed,
          { type: "context_edit", targetId: "m1", replacement: null },
          { type: "context_edit", targetId: "m1", replacement: { content: [{ type: "text", text: "short" }] } },
        ],
      },
    ]);
    // The edit another handler proposed is the latest edit the taps see.
    expect(seen[0]).toEqual([{ entryId: "m1", raw: expect.objectContaining({ toolCallId: "c1" }), edit: null, edits: [null] }]);
  });

  it("returns nothing when no tap adds a draft (pi keeps its proposal)", async () => {
    const { turnEnd } = await bound(false);
    expect(await turnEnd(boundary)).toEqual([]);
  });

  it("runs nothing on a pi whose turn_end takes no entries, or whose session manager builds no projection, or after a failed turn", async () => {
    const { turnEnd, seen } = await bound(true);
    expect(await turnEnd({ message: {} })).toEqual([]); // pi 0.73: no entries, no context
    expect(await turnEnd(boundary, false)).toEqual([]);
    expect(await turnEnd({ ...boundary, outcome: "error" })).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("binds turn_end once: the turnEnd taps observe, then the same handler answers with the drafts", async () => {
    const { turnEnd, turnEnds, handlers } = await bound(true);
    expect(handlers.get("turn_end")).toHaveLength(1);
    const answers = await turnEnd({ ...boundary, turnIndex: 3 });
    expect(turnEnds).toEqual([3]);
    expect(answers).toEqual([{ entries: [...proposed, expect.objectContaining({ type: "context_edit", targetId: "m1" })] }]);
  });
});

describe("the adapter's bindings", () => {
  it("register one handler per event and concern: the user's shell before the lifecycle on the events both see", async () => {
    const { handlers } = await bound(false);
    expect(Object.fromEntries([...handlers].map(([event, list]) => [event, list.length]))).toEqual({
      // A tool call's events (host-call-events.ts).
      tool_execution_start: 1,
      tool_call: 1,
      tool_execution_end: 1,
      tool_result: 1,
      // The user's shell commands and messages (user-shell-events.ts), and the lifecycle (lifecycle-events.ts).
      user_bash: 1,
      input: 1,
      message_start: 1,
      session_start: 2,
      agent_start: 2,
      turn_start: 2,
      session_shutdown: 1,
      agent_settled: 1,
      turn_end: 1,
      before_agent_start: 1,
      // The prompt cache (prompt-cache.ts) and the context (context-events.ts).
      cache_warming_decision: 1,
      context: 1,
    });
  });
});

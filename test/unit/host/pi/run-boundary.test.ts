/**
 * Where the pi adapter starts a run: the event orders each pi line emits (read from their
 * agent-session code) for a prompt, pi's retries and continues, and a run an extension starts.
 * The real pi lines run the same orders in test/e2e/policies-retries-pi.test.ts.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bindGovernor, createGovernor } from "pi-governor/host";
import { definePlugin, definePreset } from "pi-governor";
import { RunBoundary } from "../../../../host/pi/run-boundary.ts";
import { fakePi } from "pi-governor/testing";

/** A governor bound to a fake pi that records each runStart; `emit` fires pi's events in order. */
async function bound() {
  const runs: number[] = [];
  let agentStarts = 0;
  const plugin = definePlugin({
    name: "test:runs",
    configKey: "testRuns",
    description: "",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.runStart.tap({ name: "test:runs" }, () => void runs.push(agentStarts));
    },
  });
  const preset = definePreset({ name: "t", description: "", plugins: () => [plugin()] });
  const governor = await createGovernor({ preset, cwd: "/tmp", agentDir: "/tmp", env: {}, layers: [] });
  const { pi, handlers } = fakePi();
  bindGovernor(pi, governor, { cwd: "/tmp" });
  const ctx = {
    cwd: "/tmp",
    hasUI: false,
    ui: { notify: () => {}, setStatus: () => {}, confirm: async () => false },
    sessionManager: { getSessionId: () => "s1", getEntries: () => [], getBranch: () => [] },
  };
  const emit = async (...events: string[]) => {
    for (const type of events) {
      if (type === "agent_start") agentStarts++;
      for (const h of handlers.get(type) ?? []) await h({ type, prompt: "p", messageType: "user" }, ctx);
    }
  };
  return { emit, runs };
}

describe("RunBoundary", () => {
  it("the first agent_start begins a run; later ones only after a new run is expected", () => {
    const b = new RunBoundary();
    expect(b.agentStarted()).toBe(true);
    expect(b.agentStarted()).toBe(false);
    b.expectNewRun();
    expect(b.agentStarted()).toBe(true);
  });
});

describe("runStart in the pi adapter", () => {
  it("a prompt, then pi retrying a provider error twice (every line): one run", async () => {
    const { emit, runs } = await bound();
    await emit("before_agent_start", "agent_start", "agent_end", "agent_start", "agent_end", "agent_start", "agent_end");
    expect(runs).toEqual([1]);
  });

  it("pi 0.87+: the retries settle once; the next prompt is a new run", async () => {
    const { emit, runs } = await bound();
    await emit("before_agent_start", "agent_start", "agent_end", "agent_start", "agent_end", "agent_settled");
    await emit("before_agent_start", "agent_start", "agent_end", "agent_settled");
    expect(runs).toEqual([1, 3]);
  });

  it("pi 0.87: a custom message with triggerTurn (no before_agent_start) after the session settled is a new run", async () => {
    const { emit, runs } = await bound();
    await emit("before_agent_start", "agent_start", "agent_end", "agent_settled", "agent_start", "agent_end", "agent_settled");
    expect(runs).toEqual([1, 2]);
  });

  it("an agent_before_settle continuation, compaction retry or queued messages (agent_start without either signal) continue the run", async () => {
    const { emit, runs } = await bound();
    await emit("before_agent_start", "agent_start", "agent_end", "agent_start", "agent_end", "agent_start", "agent_end", "agent_settled");
    expect(runs).toEqual([1]);
  });
});

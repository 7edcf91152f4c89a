/**
 * The chaos plugin through a real governor (retry -> timeout -> chaos -> tool): each fault type
 * looks to the outer stages like the real failure, is marked as injected, and is reproducible by seed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { classifyError, type ToolObservation } from "pi-governor";
import {
  CHAOS_ERROR_CATEGORIES,
  CHAOS_EVENT,
  chaosControllerOf,
  globMatcher,
  INJECTED_NOTE,
  seededRandom,
  transportError,
} from "../../../../plugins/chaos/index.ts";
import { type ChaosGovernor, chaosGovernor, SAFE } from "./governor.ts";

const open: ChaosGovernor[] = [];
async function build(...args: Parameters<typeof chaosGovernor>): Promise<ChaosGovernor> {
  const g = await chaosGovernor(...args);
  open.push(g);
  return g;
}
afterEach(async () => {
  for (const g of open.splice(0)) await g.close();
});

const fastRetry = { baseDelayMs: 1, maxDelayMs: 2, budget: { ratio: 10, minRetries: 1000, windowMs: 60_000 } };

function chaosOf(obs: ToolObservation): { injected: boolean; faults: Array<Record<string, unknown>> } | undefined {
  return obs.details.chaos as never;
}

describe("raw transport errors", () => {
  it.each(CHAOS_ERROR_CATEGORIES)("%s classifies through classifyError as that category", (category) => {
    const error = classifyError(transportError(category, 1500), { subject: "t" });
    expect(error.category).toBe(category);
    if (category === "rate_limit") expect(error.retryAfterMs).toBe(1500);
  });
});

describe("the chaos plugin", () => {
  it("is off by default and a project file cannot turn it on", async () => {
    const off = await build([{ name: "t" }], {});
    expect(off.gov.plugins.find((p) => p.plugin.name === "governor:chaos")?.enabled).toBe(false);
    const project = await build([{ name: "t" }], {}, { chaos: { enabled: true, faults: [{ type: "error", probability: 1, category: "auth" }] } });
    expect(project.gov.plugins.find((p) => p.plugin.name === "governor:chaos")?.enabled).toBe(false);
    expect(project.gov.problems().join("\n")).toMatch(/chaos\.enabled: ignored/);
    expect((await project.gov.pipeline.callTool("t", {})).status).toBe("SUCCESS");
  });

  it("injects each error category before the transport, marked in details and sent as an event", async () => {
    for (const category of CHAOS_ERROR_CATEGORIES) {
      const g = await build([{ name: "t" }], {
        retry: { maxAttempts: 1 },
        chaos: { enabled: true, seed: 1, faults: [{ type: "error", probability: 1, category }] },
      });
      const obs = await g.gov.pipeline.callTool("t", {}, { toolCallId: "c1" });
      expect(obs.status).toBe("ERROR");
      if (obs.status === "ERROR") expect(obs.error.category).toBe(category);
      expect(g.executions.get("t") ?? 0).toBe(0);
      expect(obs.content[0]?.type === "text" && obs.content[0].text).toContain(INJECTED_NOTE);
      expect(chaosOf(obs)).toEqual({ injected: true, faults: [{ type: "error", rule: 0, attempt: 1, category }] });
      expect(g.events).toEqual([
        { type: "custom", source: "governor:chaos", name: CHAOS_EVENT, data: { tool: "t", toolCallId: "c1", type: "error", rule: 0, attempt: 1, category } },
      ]);
      expect(g.gov.logs.some((r) => r.source === "governor:chaos" && r.message.includes(`injected error (${category}) into t`))).toBe(true);
    }
  });

  it("exercises retry: transient faults are retried on safe tools, with the server's retry-after", async () => {
    const g = await build([{ name: "safe", annotations: SAFE }], {
      retry: { ...fastRetry, maxAttempts: 3 },
      chaos: { enabled: true, seed: 3, faults: [{ type: "error", probability: 1, category: "rate_limit", retryAfterMs: 20 }] },
    });
    const started = performance.now();
    const obs = await g.gov.pipeline.callTool("safe", {});
    expect(obs.status).toBe("ERROR");
    expect(obs.retries).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(38); // two sleeps of at least the 20 ms retry-after
    expect(chaosOf(obs)?.faults.map((f) => f.attempt)).toEqual([1, 2, 3]);
  });

  it("never repeats a non-idempotent tool: a transient fault ends the call", async () => {
    const g = await build([{ name: "write" }], {
      retry: { ...fastRetry, maxAttempts: 5 },
      chaos: { enabled: true, seed: 4, faults: [{ type: "error", probability: 0.5, category: "network" }] },
    });
    for (let i = 0; i < 50; i++) await g.gov.pipeline.callTool("write", {});
    const injected = chaosControllerOf(g.gov.pipeline)!.injected;
    expect(injected).toBeGreaterThan(10);
    expect(g.executions.get("write")).toBe(50 - injected); // every call reached the tool at most once
  });

  it("a hang ends with the attempt's timeout (TIMEOUT_EXCEEDED, marked) and leaves no timer behind", async () => {
    const g = await build([{ name: "t" }], { timeout: { defaultMs: 30 }, chaos: { enabled: true, seed: 5, faults: [{ type: "hang", probability: 1 }] } });
    const obs = await g.gov.pipeline.callTool("t", {});
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    expect(chaosOf(obs)?.faults).toEqual([{ type: "hang", rule: 0, attempt: 1 }]);
    expect(g.executions.get("t") ?? 0).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(g.clock.live).toBe(0); // the hang's own 600 s bound was cleared by the abort
  });

  it("a hang also ends on the caller's abort", async () => {
    const g = await build([{ name: "t" }], { chaos: { enabled: true, seed: 5, faults: [{ type: "hang", probability: 1 }] } });
    const ac = new AbortController();
    const pending = g.gov.pipeline.callTool("t", {}, { signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    const obs = await pending;
    expect(obs.status).not.toBe("SUCCESS");
    expect(obs.durationMs).toBeLessThan(5_000);
    await new Promise((r) => setImmediate(r));
    expect(g.clock.live).toBe(0);
  });

  it("adds latency (fixed), then makes the real call", async () => {
    const g = await build([{ name: "t" }], { chaos: { enabled: true, seed: 6, faults: [{ type: "latency", probability: 1, minMs: 40, maxMs: 40 }] } });
    const obs = await g.gov.pipeline.callTool("t", {});
    expect(obs.status).toBe("SUCCESS");
    expect(obs.durationMs).toBeGreaterThanOrEqual(39);
    expect(g.executions.get("t")).toBe(1);
    expect(chaosOf(obs)?.faults).toEqual([{ type: "latency", rule: 0, attempt: 1, ms: 40 }]);
  });

  it("oversize appends N bytes to a real answer; isError answers as an mcp error", async () => {
    const g = await build([{ name: "big" }, { name: "bad" }], {
      chaos: {
        enabled: true,
        seed: 7,
        faults: [
          { type: "oversize", tools: "bi?", probability: 1, bytes: 100_000 },
          { type: "isError", tools: "ba*", probability: 1, text: "disk full" },
        ],
      },
    });
    const big = await g.gov.pipeline.callTool("big", {});
    expect(big.status).toBe("SUCCESS");
    expect(big.content.map((b) => (b.type === "text" ? b.text.length : 0))).toEqual(["big ok".length, 100_000]);
    const bad = await g.gov.pipeline.callTool("bad", {});
    expect(bad.status === "ERROR" && bad.error.category).toBe("mcp");
    expect(bad.content[0]?.type === "text" && bad.content[0].text).toContain("disk full (injected by chaos)");
  });

  it("the same seed injects the same faults in the same order", async () => {
    const faults = [
      { type: "error", probability: 0.2, category: "network" },
      { type: "isError", probability: 0.2 },
      { type: "latency", probability: 0.2, minMs: 0, maxMs: 3 },
    ];
    const run = async (seed: number) => {
      const g = await build([{ name: "t", annotations: SAFE }], { retry: fastRetry, chaos: { enabled: true, seed, faults } });
      const out: string[] = [];
      for (let i = 0; i < 60; i++) out.push(JSON.stringify(chaosOf(await g.gov.pipeline.callTool("t", {}))?.faults ?? []));
      return out;
    };
    const a = await run(11);
    expect(await run(11)).toEqual(a);
    expect(await run(12)).not.toEqual(a);
  });

  it("/<root> chaos off|on|status pauses and resumes injection", async () => {
    const g = await build([{ name: "t" }], {
      retry: { maxAttempts: 1 },
      chaos: { enabled: true, seed: 8, startActive: false, faults: [{ type: "error", probability: 1, category: "auth" }] },
    });
    const notes: string[] = [];
    const ctx = {
      ui: { hasUI: true, notify: (m: string) => notes.push(m), setStatus: () => {}, confirm: async () => false },
      cwd: process.cwd(),
      sessionId: "s",
    };
    expect((await g.gov.pipeline.callTool("t", {})).status).toBe("SUCCESS");
    await g.gov.pipeline.runCommand("governor chaos", "on", ctx);
    expect((await g.gov.pipeline.callTool("t", {})).status).toBe("ERROR");
    await g.gov.pipeline.runCommand("governor chaos", "off", ctx);
    expect((await g.gov.pipeline.callTool("t", {})).status).toBe("SUCCESS");
    await g.gov.pipeline.runCommand("governor chaos", "status", ctx);
    expect(notes.at(-1)).toMatch(/^chaos: off, seed 8\ninjected: 1 \(error 1\)\nrules:\n {2}\[0\] error on \* p=1 auth$/);
    await g.gov.pipeline.runCommand("governor chaos", "sideways", ctx);
    expect(notes.at(-1)).toMatch(/use \/governor chaos on, off or status/);
  });

  it("reports a range whose minimum exceeds its maximum", async () => {
    const g = await build([{ name: "t" }], { chaos: { enabled: true, faults: [{ type: "latency", probability: 1, minMs: 50, maxMs: 10 }] } });
    expect(g.gov.problems().join("\n")).toMatch(/minMs 50 exceeds maxMs 10/);
  });
});

describe("helpers", () => {
  it("globs match whole names only", () => {
    expect(globMatcher("kota_*")("kota_search")).toBe(true);
    expect(globMatcher("kota_*")("xkota_search")).toBe(false);
    expect(globMatcher("a?c")("abc")).toBe(true);
    expect(globMatcher("a.c")("abc")).toBe(false);
    expect(globMatcher("*")("anything")).toBe(true);
    expect(globMatcher("*_search")("kota_search")).toBe(true);
    expect(globMatcher("k*a*h")("kota_search")).toBe(true);
    expect(globMatcher("k*a*x")("kota_search")).toBe(false);
    // A backtracking regex (^.*a.*a.*...b$) takes minutes on this; the scan is bounded by 64 x 16 steps.
    const started = performance.now();
    for (let i = 0; i < 1000; i++) expect(globMatcher("*a*a*a*a*a*a*a*b")("a".repeat(64))).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("the PRNG is deterministic and uniform enough", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
});

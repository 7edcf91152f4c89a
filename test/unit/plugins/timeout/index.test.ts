import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { TOOL_STAGE, contentText, timedOut, type ToolCallContext, type ToolHandler } from "pi-governor";
import { runAttempt } from "../../../../plugins/timeout/attempt.ts";
import { attemptTimeoutWrapper, linkedCount, timeout, TOOL_TIMEOUT_MS, totalDeadlineWrapper, DEADLINE_STAGE } from "../../../../plugins/timeout/index.ts";
import { timeoutDefaults, type TimeoutOptions } from "../../../../plugins/timeout/config.ts";
import { flush, ManualClock } from "pi-governor/testing";
import { never, ok, pipelineWith, type Body } from "../../../helpers/wrapper-pipeline.ts";

const opts = (o: Partial<TimeoutOptions> = {}): TimeoutOptions => ({ ...timeoutDefaults, ...o });
const stack = (clock: ManualClock, body: Body, o: Partial<TimeoutOptions> = {}, name = "tool") =>
  pipelineWith(
    clock,
    body,
    [
      [DEADLINE_STAGE, totalDeadlineWrapper(opts(o))],
      [TOOL_STAGE.ATTEMPT, attemptTimeoutWrapper(opts(o), clock)],
    ],
    { name },
  );

describe("timeout: defaults and config", () => {
  it("uses the named 300 s constant by default", () => {
    expect(TOOL_TIMEOUT_MS).toBe(300_000);
    const plugin = timeout();
    expect(plugin.defaults).toMatchObject({ enabled: true, defaultMs: TOOL_TIMEOUT_MS, perTool: {}, totalMs: 0 });
    expect(plugin.configKey).toBe("timeout");
  });

  it("rejects a zero or negative limit in config", () => {
    expect(() => timeout({ defaultMs: 0 })).toThrow(/invalid overrides/);
  });
});

describe("timeout: one attempt", () => {
  it("passes a successful result through, clears its timer and never creates or aborts a signal it did not hand out", async () => {
    const clock = new ManualClock();
    let seen: ToolCallContext | undefined;
    const p = stack(clock, async (call) => {
      seen = call;
      return ok("done");
    });
    const obs = await p.callTool("tool", {});
    expect(obs.status).toBe("SUCCESS");
    expect(contentText(obs.content)).toBe("done");
    expect(clock.pending).toBe(0);
    expect(seen?.attempt).toBe(1);
  });

  it("resolves normally when the tool answers before the limit (400 ms of 300 s)", async () => {
    const clock = new ManualClock();
    const p = stack(clock, (call) => new Promise((resolve) => clock.setTimeout(() => resolve(ok(String(call.signal.aborted))), 400)));
    const pending = p.callTool("tool", {});
    await clock.advance(400);
    const obs = await pending;
    expect(obs.status).toBe("SUCCESS");
    expect(contentText(obs.content)).toBe("false");
    expect(obs.durationMs).toBe(400);
    expect(clock.pending).toBe(0);
  });

  it("does not abort the signal it handed out after a success, not even once the limit has passed", async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    const p = stack(clock, async (call) => {
      signal = call.signal;
      return ok();
    });
    await p.callTool("tool", {});
    await clock.advance(TOOL_TIMEOUT_MS * 2);
    expect(signal?.aborted).toBe(false);
  });

  it("ends a hung tool at exactly the limit with the TIMEOUT_EXCEEDED observation", async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    const p = stack(
      clock,
      (call) => {
        signal = call.signal;
        return never();
      },
      {},
      "run_command",
    );
    let settled = false;
    const pending = p.callTool("run_command", {}).finally(() => (settled = true));
    await clock.advance(TOOL_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    expect(signal?.aborted).toBe(false);
    await clock.advance(1);
    const obs = await pending;
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    if (obs.status !== "TIMEOUT_EXCEEDED") throw new Error("unreachable");
    expect(obs.toolName).toBe("run_command");
    expect(obs.durationMs).toBe(300_000);
    expect(obs.timeoutMs).toBe(300_000);
    expect(obs.message).toBe("Tool exceeded the 300s timeout limit. Reassess strategy.");
    expect(contentText(obs.content)).toMatch(/Reassess strategy/);
    expect(obs.meta).toMatchObject({ timeout: { limitMs: 300_000, scope: "attempt" } });
    // The transport's signal is aborted so the MCP request is cancelled, with a timeout reason.
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as { category?: string }).category).toBe("timeout");
    expect(clock.pending).toBe(0);
  });

  it("uses a per-tool override and reports the real limit", async () => {
    const clock = new ManualClock();
    const p = stack(clock, () => never(), { perTool: { kota_index: 600_000 } }, "kota_index");
    const pending = p.callTool("kota_index", {});
    await clock.advance(300_000);
    await clock.advance(300_000);
    const obs = await pending;
    expect(obs).toMatchObject({ status: "TIMEOUT_EXCEEDED", timeoutMs: 600_000, message: "Tool exceeded the 600s timeout limit. Reassess strategy." });
  });

  it("turns a throwing tool into an ERROR observation and clears the timer", async () => {
    const clock = new ManualClock();
    const p = stack(clock, async () => {
      throw Object.assign(new Error("reset"), { code: "ECONNRESET" });
    });
    const obs = await p.callTool("tool", {});
    expect(obs.status).toBe("ERROR");
    if (obs.status === "ERROR") expect(obs.error.category).toBe("network");
    expect(clock.pending).toBe(0);
  });

  it("turns a synchronous throw of the inner handler into an ERROR observation", async () => {
    const clock = new ManualClock();
    const next: ToolHandler = () => {
      throw new Error("sync boom");
    };
    const call: ToolCallContext = {
      toolName: "t",
      toolCallId: "",
      args: {},
      signal: new AbortController().signal,
      attempt: 1,
      sessionId: "",
      startedAt: clock.now(),
    };
    const obs = await runAttempt(next, call, { ms: 10, scope: "attempt", reportedMs: 10 }, clock);
    expect(obs.status).toBe("ERROR");
    expect(clock.pending).toBe(0);
  });

  it("treats a plain (non-promise) value from a misbehaving inner handler as its answer and clears the timer", async () => {
    const clock = new ManualClock();
    const next = (() => timedOut("t", 1)) as unknown as ToolHandler;
    const call: ToolCallContext = {
      toolName: "t",
      toolCallId: "",
      args: {},
      signal: new AbortController().signal,
      attempt: 1,
      sessionId: "",
      startedAt: clock.now(),
    };
    const obs = await runAttempt(next, call, { ms: 10, scope: "attempt", reportedMs: 10 }, clock);
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    expect(clock.pending).toBe(0);
  });

  it("ignores a late answer or a late rejection after the timeout (no unhandled rejection)", async () => {
    const clock = new ManualClock();
    let rejectLate: (e: unknown) => void = () => {};
    let resolveLate: (v: unknown) => void = () => {};
    const p1 = stack(clock, () => new Promise((_, reject) => (rejectLate = reject)));
    const p2 = stack(clock, () => new Promise((resolve) => (resolveLate = resolve as never)));
    const a = p1.callTool("tool", {});
    const b = p2.callTool("tool", {});
    await clock.advance(TOOL_TIMEOUT_MS);
    rejectLate(new Error("late"));
    resolveLate(ok("late"));
    await flush();
    expect((await a).status).toBe("TIMEOUT_EXCEEDED");
    expect((await b).status).toBe("TIMEOUT_EXCEEDED");
  });

  it("hands out a signal that is born aborted when it is first read after the timeout", async () => {
    const clock = new ManualClock();
    let call: ToolCallContext | undefined;
    const p = stack(clock, (c) => {
      call = c;
      return never();
    });
    const pending = p.callTool("tool", {});
    await clock.advance(TOOL_TIMEOUT_MS);
    await pending;
    expect(call!.signal.aborted).toBe(true);
  });

  it("passes a new context object down, keeping the caller's fields", async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    let inner: ToolCallContext | undefined;
    const p = stack(clock, async (c) => {
      inner = c;
      return ok();
    });
    await p.callTool("tool", { q: 1 }, { signal: caller.signal, toolCallId: "tc1", sessionId: "s1" });
    expect(inner).toMatchObject({ toolName: "tool", toolCallId: "tc1", sessionId: "s1", args: { q: 1 }, attempt: 1 });
    expect(inner!.signal).not.toBe(caller.signal);
  });
});

describe("timeout: the caller's signal (pi's Esc)", () => {
  it("ends the in-flight attempt at once, aborts the transport's signal and clears the timer", async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const p = stack(clock, (c) => {
      signal = c.signal;
      return never();
    });
    const pending = p.callTool("tool", {}, { signal: caller.signal });
    await flush();
    caller.abort(new Error("user pressed Esc"));
    const obs = await pending;
    expect(obs.status).toBe("ERROR");
    expect(contentText(obs.content)).toMatch(/cancelled/);
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as Error).message).toBe("user pressed Esc");
    expect(clock.pending).toBe(0);
    expect(linkedCount(caller.signal)).toBe(0);
  });

  it("does not start the tool when the caller already aborted", async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    caller.abort();
    let ran = false;
    const p = stack(clock, async () => {
      ran = true;
      return ok();
    });
    const obs = await p.callTool("tool", {}, { signal: caller.signal });
    expect(obs.status).toBe("ERROR");
    expect(ran).toBe(false);
    expect(clock.pending).toBe(0);
  });

  it("keeps at most one listener on a long-lived signal shared by 1,000 calls", async () => {
    const clock = new ManualClock();
    const turn = new AbortController();
    const p = stack(clock, async (c) => {
      c.signal.addEventListener("abort", () => {}); // a transport that never removes its listener (the MCP SDK)
      return ok();
    });
    for (let i = 0; i < 1000; i++) expect((await p.callTool("tool", {}, { signal: turn.signal })).status).toBe("SUCCESS");
    expect(getEventListeners(turn.signal, "abort").length).toBeLessThanOrEqual(1);
    expect(linkedCount(turn.signal)).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe("timeout: total deadline across attempts", () => {
  it("stamps call.deadline and cuts the attempt's limit to what is left, reporting the total", async () => {
    const clock = new ManualClock();
    let deadline: number | undefined;
    const p = stack(
      clock,
      (c) => {
        deadline = c.deadline;
        return never();
      },
      { totalMs: 1_000 },
    );
    const start = clock.now();
    const pending = p.callTool("tool", {});
    await clock.advance(1_000);
    const obs = await pending;
    expect(deadline).toBe(start + 1_000);
    expect(obs).toMatchObject({ status: "TIMEOUT_EXCEEDED", timeoutMs: 1_000, message: "Tool exceeded the 1s timeout limit. Reassess strategy." });
    expect(obs.meta).toMatchObject({ timeout: { scope: "total" } });
  });

  it("does not start an attempt once the deadline has passed", async () => {
    const clock = new ManualClock();
    let ran = 0;
    const wrapper = attemptTimeoutWrapper(opts(), clock);
    const handler = wrapper(
      async () => {
        ran++;
        return timedOut("tool", 1);
      },
      { name: "tool", description: "", annotations: {}, tags: [], owner: "t" },
    );
    const obs = await handler({
      toolName: "tool",
      toolCallId: "",
      args: {},
      signal: new AbortController().signal,
      attempt: 2,
      sessionId: "",
      startedAt: clock.now() - 2_000,
      deadline: clock.now() - 1,
    });
    expect(obs.status).toBe("TIMEOUT_EXCEEDED");
    expect(ran).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it("adds no layer for tools without a total deadline", () => {
    const next: ToolHandler = async () => timedOut("x", 1);
    expect(totalDeadlineWrapper(opts())(next, { name: "x", description: "", annotations: {}, tags: [], owner: "t" })).toBe(next);
    expect(totalDeadlineWrapper(opts({ perToolTotalMs: { x: 5 } }))(next, { name: "x", description: "", annotations: {}, tags: [], owner: "t" })).not.toBe(
      next,
    );
  });
});

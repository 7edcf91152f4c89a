import { describe, expect, it } from "vitest";
import { TOOL_STAGE, BudgetError, textContent, timedOut, type ToolAnnotations, type ToolObservation } from "pi-governor";
import { jitteredBackoffMs as backoffDelay } from "../../../../lib/resilience/backoff.ts";
import { retry, retryDefaults, retryWrapper, RetryBudget, type RetryOptions } from "../../../../plugins/retry/index.ts";
import { attemptTimeoutWrapper, DEADLINE_STAGE, totalDeadlineWrapper } from "../../../../plugins/timeout/index.ts";
import { timeoutDefaults } from "../../../../plugins/timeout/config.ts";
import { flush, ManualClock } from "pi-governor/testing";
import { ok, pipelineWith, sysError, type Body } from "../../../helpers/wrapper-pipeline.ts";

const SAFE: ToolAnnotations = { readOnlyHint: true };
const opts = (o: Partial<RetryOptions> = {}): RetryOptions => ({ ...retryDefaults, ...o });

/** A tool that fails with the given errors in turn, then succeeds; counts attempts. */
function scripted(failures: unknown[]): { body: Body; attempts: () => number } {
  let n = 0;
  return {
    attempts: () => n,
    body: async () => {
      const f = failures[n++];
      if (f === undefined) return ok(`ok after ${n}`);
      if (typeof (f as { status?: unknown }).status === "string") return f as ToolObservation;
      throw f;
    },
  };
}

function setup(
  failures: unknown[],
  o: Partial<RetryOptions> = {},
  tool: { annotations?: ToolAnnotations; name?: string } = { annotations: SAFE },
  random = () => 0.5,
) {
  const clock = new ManualClock();
  const s = scripted(failures);
  const p = pipelineWith(clock, s.body, [[TOOL_STAGE.RETRY, retryWrapper(opts(o), { clock, random })]], tool);
  return {
    clock,
    p,
    attempts: s.attempts,
    call: (signal?: AbortSignal) => clock.runUntilSettled(p.callTool(tool.name ?? "tool", {}, signal ? { signal } : {})),
  };
}

describe("retry: what is retried", () => {
  it("does not retry a success (one attempt, retries 0, no timer)", async () => {
    const t = setup([]);
    const obs = await t.call();
    expect(obs).toMatchObject({ status: "SUCCESS", retries: 0 });
    expect(t.attempts()).toBe(1);
    expect(t.clock.pending).toBe(0);
  });

  it("retries thrown network errors with exponential full-jitter backoff and records the retries", async () => {
    const t = setup([sysError("ECONNRESET"), sysError("ECONNREFUSED")]);
    const obs = await t.call();
    expect(obs).toMatchObject({ status: "SUCCESS", retries: 2 });
    expect(t.attempts()).toBe(3);
    // random 0.5: 0.5 * 250 * 2^0, then 0.5 * 250 * 2^1.
    expect(t.clock.requested).toEqual([125, 250]);
    expect(obs.meta).toMatchObject({ retry: { retries: 2 } });
  });

  it("retries connection_lost", async () => {
    const t = setup([new Error("MCP error -32000: Connection closed")]);
    expect(await t.call()).toMatchObject({ status: "SUCCESS", retries: 1 });
  });

  it("retries an isError result that reports a rate limit, waiting at least the retry-after hint", async () => {
    const rateLimited = { isError: true, content: textContent("429 Too Many Requests: retry after 2s") };
    const t = setup([rateLimited]);
    const obs = await t.call();
    expect(obs).toMatchObject({ status: "SUCCESS", retries: 1 });
    expect(t.clock.requested).toEqual([2_000]);
  });

  it.each([
    ["auth", Object.assign(new Error("nope"), { status: 401 })],
    ["invalid_input", Object.assign(new Error("Missing required parameter: q"), { code: -32602 })],
    ["budget", new BudgetError("over budget", { agentMessage: "narrow it" })],
    ["mcp (isError, not transient)", { isError: true, content: textContent("file missing") }],
  ])("never retries %s", async (_name, raw) => {
    const t = setup([raw, raw, raw], { retryOn: ["network", "connection_lost", "rate_limit", "unknown"] });
    const obs = await t.call();
    expect(obs.status).toBe("ERROR");
    expect(obs.retries).toBe(0);
    expect(t.attempts()).toBe(1);
  });

  it("stops after maxAttempts and records the retries on the observation and the error", async () => {
    const t = setup([sysError("ECONNRESET"), sysError("ECONNRESET"), sysError("ECONNRESET"), sysError("ECONNRESET")]);
    const obs = await t.call();
    expect(obs.status).toBe("ERROR");
    expect(t.attempts()).toBe(3);
    expect(obs.retries).toBe(2);
    if (obs.status === "ERROR") expect(obs.error.retried).toBe(2);
    expect(obs.meta).toMatchObject({ retry: { retries: 2, stoppedBy: "max_attempts" } });
  });

  it("honours a per-tool maxAttempts", async () => {
    const t = setup([sysError("ECONNRESET"), sysError("ECONNRESET")], { perTool: { tool: { maxAttempts: 2 } } });
    await t.call();
    expect(t.attempts()).toBe(2);
  });

  it("does not retry TIMEOUT_EXCEEDED by default, and does with retryTimeouts", async () => {
    const a = setup([timedOut("tool", 10)]);
    expect((await a.call()).status).toBe("TIMEOUT_EXCEEDED");
    expect(a.attempts()).toBe(1);
    const b = setup([timedOut("tool", 10)], { retryTimeouts: true });
    expect(await b.call()).toMatchObject({ status: "SUCCESS", retries: 1 });
  });

  it("does not retry timeout-category errors unless retryTimeouts", async () => {
    const err = Object.assign(new Error("Request timed out"), { code: -32001 });
    const a = setup([err]);
    expect((await a.call()).status).toBe("ERROR");
    const b = setup([err], { retryTimeouts: true });
    expect((await b.call()).status).toBe("SUCCESS");
  });
});

describe("retry: which tools", () => {
  const failing = [sysError("ECONNRESET")];
  it("skips tools without a read-only or idempotent annotation by default (no layer at all)", async () => {
    const t = setup(failing, {}, { annotations: {} });
    expect((await t.call()).status).toBe("ERROR");
    expect(t.attempts()).toBe(1);
  });
  it("retries idempotent tools", async () => {
    expect((await setup(failing, {}, { annotations: { idempotentHint: true } }).call()).status).toBe("SUCCESS");
  });
  it("retries tools on the allowlist", async () => {
    expect((await setup(failing, { tools: ["tool"] }, { annotations: {} }).call()).status).toBe("SUCCESS");
  });
  it("retries every tool with onlySafeTools false", async () => {
    expect((await setup(failing, { onlySafeTools: false }, { annotations: {} }).call()).status).toBe("SUCCESS");
  });
  it("lets a per-tool enabled: false win over annotations", async () => {
    const t = setup(failing, { perTool: { tool: { enabled: false } } });
    expect((await t.call()).status).toBe("ERROR");
    expect(t.attempts()).toBe(1);
  });
  it("is a plugin with config key retry and default maxAttempts 3", () => {
    expect(retry().defaults).toMatchObject({ enabled: true, maxAttempts: 3, onlySafeTools: true });
    expect(() => retry({ retryOn: ["auth" as never] })).toThrow();
  });
});

describe("retry: stopping", () => {
  it("ends the backoff sleep at once when the caller aborts, without another attempt", async () => {
    const clock = new ManualClock();
    const s = scripted([sysError("ECONNRESET"), sysError("ECONNRESET")]);
    const p = pipelineWith(clock, s.body, [[TOOL_STAGE.RETRY, retryWrapper(opts({ baseDelayMs: 10_000 }), { clock, random: () => 0.99 })]], {
      annotations: SAFE,
    });
    const caller = new AbortController();
    const pending = p.callTool("tool", {}, { signal: caller.signal });
    await flush();
    expect(clock.pending).toBe(1); // the backoff sleep
    caller.abort();
    const obs = await pending;
    expect(obs.status).toBe("ERROR");
    expect(obs.meta).toMatchObject({ retry: { stoppedBy: "aborted" } });
    expect(s.attempts()).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it("does not sleep past the call's total deadline", async () => {
    const clock = new ManualClock();
    const s = scripted([sysError("ECONNRESET"), sysError("ECONNRESET")]);
    const p = pipelineWith(
      clock,
      s.body,
      [
        [DEADLINE_STAGE, totalDeadlineWrapper({ ...timeoutDefaults, totalMs: 1_000 })],
        [TOOL_STAGE.RETRY, retryWrapper(opts({ baseDelayMs: 2_000 }), { clock, random: () => 0.9 })],
        [TOOL_STAGE.ATTEMPT, attemptTimeoutWrapper(timeoutDefaults, clock)],
      ],
      { annotations: SAFE },
    );
    const obs = await clock.runUntilSettled(p.callTool("tool", {}));
    expect(obs.status).toBe("ERROR");
    expect(obs.meta).toMatchObject({ retry: { stoppedBy: "deadline" } });
    expect(s.attempts()).toBe(1);
  });

  it("gives up when the server's retry-after is longer than maxRetryAfterMs", async () => {
    const t = setup([Object.assign(new Error("slow down"), { status: 429, headers: { "retry-after": "120" } })]);
    const obs = await t.call();
    expect(obs.meta).toMatchObject({ retry: { stoppedBy: "retry_after_too_long" } });
    expect(t.attempts()).toBe(1);
  });

  it("stops retrying when the retry budget is spent, so a failing server sees no retry storm", async () => {
    const clock = new ManualClock();
    let attempts = 0;
    const p = pipelineWith(
      clock,
      async () => {
        attempts++;
        throw sysError("ECONNRESET");
      },
      [[TOOL_STAGE.RETRY, retryWrapper(opts({ budget: { ratio: 0, minRetries: 2, windowMs: 60_000 } }), { clock, random: () => 0 })]],
      { annotations: SAFE },
    );
    const results: ToolObservation[] = [];
    for (let i = 0; i < 5; i++) results.push(await clock.runUntilSettled(p.callTool("tool", {})));
    // 5 calls, 2 retries in the budget: 7 attempts, not 15.
    expect(attempts).toBe(7);
    expect(results.at(-1)!.meta).toMatchObject({ retry: { stoppedBy: "budget" } });
  });
});

describe("backoffDelay", () => {
  it("is uniform in [0, min(cap, base * 2^(n-1)))", () => {
    expect(backoffDelay({ retry: 1, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0 })).toBe(0);
    expect(backoffDelay({ retry: 1, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999 })).toBe(99);
    expect(backoffDelay({ retry: 3, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.5 })).toBe(200);
    expect(backoffDelay({ retry: 10, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.5 })).toBe(500);
  });
  it("waits at least the retry-after hint", () => {
    expect(backoffDelay({ retry: 1, baseDelayMs: 100, maxDelayMs: 1_000, retryAfterMs: 1_500, random: () => 0.5 })).toBe(1_500);
  });
});

describe("RetryBudget", () => {
  it("allows minRetries + ratio * calls per window and refills as the window slides", () => {
    const b = new RetryBudget({ ratio: 0.5, minRetries: 1, windowMs: 10_000 });
    for (let i = 0; i < 4; i++) b.recordCall(0);
    expect([b.tryAcquire(0), b.tryAcquire(0), b.tryAcquire(0), b.tryAcquire(0)]).toEqual([true, true, true, false]);
    expect(b.tryAcquire(5_000)).toBe(false);
    // After a full window the old calls and retries are forgotten: only the floor remains.
    expect(b.tryAcquire(20_000)).toBe(true);
    expect(b.tryAcquire(20_000)).toBe(false);
  });
});

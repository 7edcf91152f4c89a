/**
 * Properties of retry and timeout (fast-check): attempts never exceed the maximum, the retry budget is
 * never exceeded, and retry never sleeps (nor a call runs) past the total deadline.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TOOL_STAGE, timedOut, type ToolObservation } from "pi-governor";
import { NEVER_RETRIED, RetryBudget, retryDefaults, retryWrapper, type RetryOptions } from "../../plugins/retry/index.ts";
import { attemptTimeoutWrapper, DEADLINE_STAGE, totalDeadlineWrapper } from "../../plugins/timeout/index.ts";
import { timeoutDefaults } from "../../plugins/timeout/config.ts";
import { ManualClock } from "pi-governor/testing";
import { ok, pipelineWith } from "../helpers/wrapper-pipeline.ts";

/** Outcomes a scripted attempt can have. */
const OUTCOMES = ["success", "network", "connection_lost", "rate_limit", "auth", "invalid_input", "timeout_obs", "mcp"] as const;
type Outcome = (typeof OUTCOMES)[number];

function raise(outcome: Exclude<Outcome, "success" | "timeout_obs">): never {
  switch (outcome) {
    case "network":
      throw Object.assign(new Error("reset"), { code: "ECONNRESET" });
    case "connection_lost":
      throw new Error("MCP error -32000: Connection closed");
    case "rate_limit":
      throw Object.assign(new Error("slow down"), { status: 429 });
    case "auth":
      throw Object.assign(new Error("no"), { status: 401 });
    case "invalid_input":
      throw Object.assign(new Error("Missing required parameter: q"), { code: -32602 });
    case "mcp":
      throw { isError: true, content: [{ type: "text", text: "file missing" }] };
  }
}

const retryOptions = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 6 }),
  retryTimeouts: fc.boolean(),
  baseDelayMs: fc.integer({ min: 0, max: 2_000 }),
  maxDelayMs: fc.integer({ min: 0, max: 10_000 }),
  retryOn: fc.subarray(["network", "connection_lost", "rate_limit", "mcp", "unknown"] as const),
});

describe("retry properties", () => {
  it("attempts never exceed maxAttempts; retries = attempts - 1; never-retried categories run once", async () => {
    await fc.assert(
      fc.asyncProperty(
        retryOptions,
        fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (o, script, r) => {
          const clock = new ManualClock();
          let attempts = 0;
          const options: RetryOptions = { ...retryDefaults, ...o, onlySafeTools: false, budget: { ratio: 10, minRetries: 1_000, windowMs: 60_000 } };
          const p = pipelineWith(clock, async () => {
            const outcome = script[Math.min(attempts++, script.length - 1)]!;
            if (outcome === "success") return ok();
            if (outcome === "timeout_obs") return timedOut("tool", 10);
            raise(outcome);
          }, [[TOOL_STAGE.RETRY, retryWrapper(options, { clock, random: () => r })]]);
          const obs = await clock.runUntilSettled(p.callTool("tool", {}));
          expect(attempts).toBeGreaterThanOrEqual(1);
          expect(attempts).toBeLessThanOrEqual(o.maxAttempts);
          expect(obs.retries).toBe(attempts - 1);
          // No attempt follows one that ended in a never-retried category (auth, invalid_input).
          const firstFinal = script.findIndex((s) => NEVER_RETRIED.has(s));
          if (firstFinal >= 0) expect(attempts).toBeLessThanOrEqual(firstFinal + 1);
          expect(clock.pending).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the budget never grants more than minRetries + ratio * calls within any window", () => {
    const event = fc.record({ dt: fc.integer({ min: 0, max: 5_000 }), kind: fc.constantFrom("call", "retry", "retry") });
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 60_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(event, { maxLength: 300 }),
        (windowMs, ratio, minRetries, events) => {
          const budget = new RetryBudget({ ratio, minRetries, windowMs });
          const bucketMs = windowMs / 10;
          const log: Array<{ bucket: number; kind: "call" | "retry" }> = [];
          let now = 0;
          for (const e of events) {
            now += e.dt;
            const bucket = Math.floor(now / bucketMs);
            if (e.kind === "call") {
              budget.recordCall(now);
              log.push({ bucket, kind: "call" });
            } else if (budget.tryAcquire(now)) {
              log.push({ bucket, kind: "retry" });
              // The model: the ten buckets ending at this one.
              const inWindow = log.filter((l) => l.bucket > bucket - 10 && l.bucket <= bucket);
              const calls = inWindow.filter((l) => l.kind === "call").length;
              const retries = inWindow.filter((l) => l.kind === "retry").length;
              expect(retries).toBeLessThanOrEqual(minRetries + ratio * calls + 1e-9);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a server failing every call gets at most calls + minRetries + ratio * calls attempts (no retry storm)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 2, max: 6 }),
        async (calls, ratio, minRetries, maxAttempts) => {
          const clock = new ManualClock();
          let attempts = 0;
          const options: RetryOptions = {
            ...retryDefaults,
            maxAttempts,
            baseDelayMs: 0,
            onlySafeTools: false,
            budget: { ratio, minRetries, windowMs: 600_000 },
          };
          const p = pipelineWith(clock, async () => {
            attempts++;
            raise("network");
          }, [[TOOL_STAGE.RETRY, retryWrapper(options, { clock })]]);
          for (let i = 0; i < calls; i++) await clock.runUntilSettled(p.callTool("tool", {}));
          expect(attempts - calls).toBeLessThanOrEqual(Math.floor(minRetries + ratio * calls + 1e-9));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("deadline property", () => {
  it("total backoff sleep, and the whole call, never exceed the total deadline", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 50, max: 20_000 }),
        retryOptions,
        fc.array(fc.record({ latency: fc.integer({ min: 0, max: 5_000 }), retryAfterS: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (totalMs, o, attemptsScript, r) => {
          const clock = new ManualClock();
          let n = 0;
          const sleeps: number[] = [];
          const options: RetryOptions = {
            ...retryDefaults,
            ...o,
            retryOn: ["network", "rate_limit"],
            retryTimeouts: true,
            onlySafeTools: false,
            budget: { ratio: 10, minRetries: 1_000, windowMs: 60_000 },
          };
          const p = pipelineWith(clock, async () => {
            const step = attemptsScript[Math.min(n++, attemptsScript.length - 1)]!;
            await new Promise<void>((resolve) => clock.setTimeout(resolve, step.latency));
            if (step.retryAfterS !== undefined)
              throw Object.assign(new Error("slow down"), { status: 429, headers: { "retry-after": String(step.retryAfterS) } });
            raise("network");
          }, [
            [DEADLINE_STAGE, totalDeadlineWrapper({ ...timeoutDefaults, totalMs })],
            [TOOL_STAGE.RETRY, retryWrapper(options, { clock, random: () => r, onRetry: (i) => sleeps.push(i.delayMs) })],
            [TOOL_STAGE.ATTEMPT, attemptTimeoutWrapper(timeoutDefaults, clock)],
          ]);
          const start = clock.now();
          const obs: ToolObservation = await clock.runUntilSettled(p.callTool("tool", {}));
          const slept = sleeps.reduce((a, b) => a + b, 0);
          expect(slept).toBeLessThanOrEqual(totalMs);
          expect(obs.durationMs).toBeLessThanOrEqual(totalMs);
          expect(clock.now() - start).toBeLessThanOrEqual(totalMs + 5_000);
        },
      ),
      { numRuns: 150 },
    );
  });
});

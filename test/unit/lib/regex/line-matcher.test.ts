import { afterEach, describe, expect, it } from "vitest";
import { isErrorCategory } from "../../../../core/errors.ts";
import { compilePattern, createLineMatcher, escapeRegExp, type LineMatcher } from "../../../../lib/regex/index.ts";

/** `^(a+)+$` on this line backtracks about 2^40 steps in V8: hours on the event loop. */
const CATASTROPHIC = "^(a+)+$";
const EVIL_LINE = `${"a".repeat(40)}!`;

describe("compilePattern", () => {
  it("marks text without regex syntax, and invalid expressions, as literals; others as regexes", () => {
    expect(compilePattern("needle")).toMatchObject({ literal: true });
    expect(compilePattern("entry 2 (").literal).toBe(true);
    expect(compilePattern("entry 2 (").regex.test("ENTRY 2 (x")).toBe(true);
    expect(compilePattern("fo+").literal).toBe(false);
    expect(compilePattern(CATASTROPHIC).literal).toBe(false);
    expect(compilePattern("NeEdLe").regex.flags).toBe("i");
    expect(compilePattern("x", { caseInsensitive: false }).regex.flags).toBe("");
    expect(new RegExp(escapeRegExp("a.b*c(")).test("a.b*c(")).toBe(true);
  });

  it("refuses an empty or overlong pattern with an error that says what to do", () => {
    expect(() => compilePattern("")).toThrow(/empty/);
    try {
      compilePattern("x".repeat(501));
      expect.unreachable();
    } catch (error) {
      expect(isErrorCategory(error, "invalid_input")).toBe(true);
      expect((error as Error).message).toMatch(/501 characters \(limit 500\)/);
    }
  });
});

describe("createLineMatcher", () => {
  const open: LineMatcher[] = [];
  const matcher = (source: string, batchDeadlineMs = 300) => {
    const m = createLineMatcher(compilePattern(source), { batchDeadlineMs });
    open.push(m);
    return m;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
  });

  it("finds the first match index per line, for literals and regexes alike", async () => {
    expect(Array.from(await matcher("needle").match(["a needle", "hay", "NEEDLE"]))).toEqual([2, -1, 0]);
    const re = matcher("fo+bar");
    expect(Array.from(await re.match(["xx foobar", "no", "FOOOBAR"]))).toEqual([3, -1, 0]);
    // The worker is reused across batches.
    expect(Array.from(await re.match(["foobar"]))).toEqual([0]);
    // Backreferences and lookaround keep working (full JavaScript semantics in the worker).
    expect(Array.from(await matcher("(\\w)\\1").match(["abba", "abc"]))).toEqual([1, -1]);
    expect(Array.from(await matcher("a(?=b)").match(["cab", "ca"]))).toEqual([1, -1]);
  });

  it("stops a catastrophic pattern at the deadline with a clear error, and the event loop keeps ticking", async () => {
    const m = matcher(CATASTROPHIC, 200);
    await m.match(["warm"]); // the deadline covers matching, not the thread's start
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    try {
      await m.match([EVIL_LINE]);
      expect.unreachable();
    } catch (error) {
      expect(isErrorCategory(error, "invalid_input")).toBe(true);
      expect((error as Error).message).toMatch(/took longer than 200 ms .* backtracks catastrophically/);
      expect((error as { agentMessage: string }).agentMessage).toMatch(/simpler pattern: a plain literal word/);
    } finally {
      clearInterval(ticker);
    }
    // Bounded: far below the hours the expression would take on the main thread.
    expect(performance.now() - started).toBeLessThan(10_000);
    // The main thread ran timers while the worker was stuck in the expression.
    expect(ticks).toBeGreaterThanOrEqual(5);
    // A failed matcher stays failed (its worker is gone).
    await expect(m.match(["aaa"])).rejects.toThrow(/took longer than/);
  });

  it("ends at once when the caller's signal aborts, with the signal's reason", async () => {
    const m = matcher(CATASTROPHIC, 60_000);
    await m.match(["warm"]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed Esc")), 50);
    const started = performance.now();
    await expect(m.match([EVIL_LINE], controller.signal)).rejects.toThrow("user pressed Esc");
    expect(performance.now() - started).toBeLessThan(10_000);
    await expect(m.match(["x"], AbortSignal.abort(new Error("already")))).rejects.toThrow();
  });

  it("aborts while the worker is still starting", async () => {
    const m = matcher("fo+", 60_000);
    await expect(m.match(["foo"], AbortSignal.abort(new Error("early")))).rejects.toThrow("early");
    const controller = new AbortController();
    const pending = m.match(["foo"], controller.signal);
    controller.abort(new Error("during start"));
    await expect(pending).rejects.toThrow();
  });
});

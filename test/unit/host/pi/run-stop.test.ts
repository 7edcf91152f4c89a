/**
 * How a stopped run ends on each pi line (see host/pi/run-stop.ts): pi before 0.84.1 is aborted
 * before its next model request; later pi gets one request that sees why, and is aborted before the
 * one after (pi ends a run by itself only after a batch whose calls all say `terminate`, and calls it
 * refuses itself never do). The real pi lines run it in test/e2e/policies-stop-pi.test.ts.
 */
import { describe, expect, it } from "vitest";
import { RunStop } from "../../../../host/pi/run-stop.ts";

describe("RunStop", () => {
  it("pi that honours terminate: one more request, then an abort; nothing before a stop", () => {
    const stop = new RunStop(true);
    expect(stop.beforeRequest()).toBe(false);
    stop.stopped();
    stop.stopped(); // later stopped calls of the same run do not buy more requests
    expect(stop.beforeRequest()).toBe(false);
    stop.stopped();
    expect(stop.beforeRequest()).toBe(true);
    expect(stop.beforeRequest()).toBe(false);
  });

  it("pi without terminate: aborted before the next request", () => {
    const stop = new RunStop(false);
    stop.stopped();
    expect(stop.beforeRequest()).toBe(true);
  });

  it("a new run forgets the stop", () => {
    const stop = new RunStop(true);
    stop.stopped();
    expect(stop.beforeRequest()).toBe(false);
    stop.newRun();
    expect(stop.beforeRequest()).toBe(false);
    expect(stop.beforeRequest()).toBe(false);
  });
});

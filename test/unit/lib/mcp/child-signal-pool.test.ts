/** Linked child abort signals for MCP calls: forwarding, unlinking and reuse. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ChildSignalPool } from "../../../../lib/mcp/child-signal-pool.ts";

describe("ChildSignalPool links", () => {
  const pool = new ChildSignalPool();
  const linkSignal = (parent: AbortSignal | undefined) => pool.acquire(parent);
  it("forwards the parent's abort while linked, and removes its listener on unlink", () => {
    const parent = new AbortController();
    const a = linkSignal(parent.signal);
    const b = linkSignal(parent.signal);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(2);
    a.unlink();
    a.unlink();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    parent.abort("stop");
    expect(a.signal.aborted).toBe(false);
    expect(b.signal.aborted).toBe(true);
    expect(b.signal.reason).toBe("stop");
  });

  it("never aborts after unlink, and an aborted parent aborts the child at once", () => {
    const l = linkSignal(undefined);
    l.unlink();
    l.abort("late");
    expect(l.signal.aborted).toBe(false);
    expect(linkSignal(AbortSignal.abort("x")).signal.aborted).toBe(true);
  });
});

describe("ChildSignalPool", () => {
  it("reuses a child only after stripping what was added to it, so a later abort cancels only the current call", () => {
    const pool = new ChildSignalPool();
    const parent = new AbortController();
    const first = pool.acquire(parent.signal);
    let stale = 0;
    first.signal.addEventListener("abort", () => stale++);
    first.unlink();
    const second = pool.acquire(parent.signal);
    expect(second.signal).toBe(first.signal);
    expect(getEventListeners(second.signal, "abort")).toHaveLength(0);
    let current = 0;
    second.signal.addEventListener("abort", () => current++);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    parent.abort("esc");
    expect([stale, current]).toEqual([0, 1]);
    second.unlink();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    // An aborted child is never handed out again.
    const third = pool.acquire(undefined);
    expect(third.signal).not.toBe(second.signal);
    expect(third.signal.aborted).toBe(false);
  });
});

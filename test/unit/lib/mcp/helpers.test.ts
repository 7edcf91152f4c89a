/** Pure pieces of the MCP manager: backoff schedule, linked signals, state diff, config defaults, error shape. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { scheduledBackoffMs as backoffDelay } from "../../../../lib/resilience/backoff.ts";
import { MCP_SERVER_DEFAULTS, resolveServerConfig, ServerConnectionLostError, formatServerStatus } from "../../../../lib/mcp/index.ts";
import { diffSnapshots } from "../../../../lib/mcp/state-cache.ts";
import { ChildSignalPool } from "../../../../lib/mcp/child-signal-pool.ts";
import { isErrorCategory, isGovernorError } from "../../../../core/errors.ts";
import { failure } from "../../../../core/observation.ts";

describe("backoffDelay", () => {
  it("follows the schedule and repeats its last step", () => {
    const s = MCP_SERVER_DEFAULTS.backoffMs;
    expect([1, 2, 3, 4, 5, 6, 9].map((a) => backoffDelay(a, s))).toEqual([100, 200, 400, 800, 1600, 1600, 1600]);
    expect(backoffDelay(1, [])).toBe(0);
  });
});

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

describe("diffSnapshots", () => {
  it("reports version changes, lost and new tools, and changed probe values", () => {
    const before = { serverVersion: { name: "kota", version: "2.1" }, tools: ["search", "deps"], extra: { indexed: true } };
    const after = { serverVersion: { name: "kota", version: "2.2" }, tools: ["search", "usages"], extra: { indexed: false } };
    expect(diffSnapshots(before, after)).toEqual([
      "server version changed: kota 2.1 -> kota 2.2",
      "tools no longer offered: deps",
      "new tools: usages",
      "indexed was true, now false",
    ]);
    expect(diffSnapshots(before, before)).toEqual([]);
  });
});

describe("config", () => {
  it("fills the documented defaults", () => {
    const c = resolveServerConfig({ name: "kota", command: "bun" });
    expect(c).toMatchObject({
      connectTimeoutMs: 10_000,
      maxReconnectAttempts: 5,
      backoffMs: [100, 200, 400, 800, 1600],
      closeGraceMs: 2_000,
      heartbeatIntervalMs: 500,
      heartbeatTimeoutMs: 2_000,
      env: {},
      args: [],
    });
  });
  it("rejects names that cannot prefix tool names", () => {
    expect(() => resolveServerConfig({ name: "bad name", command: "x" })).toThrow(/must start with a letter/);
  });
});

describe("ServerConnectionLostError", () => {
  it("is a governed connection_lost error with the structured fields for the agent", () => {
    const e = new ServerConnectionLostError("down", {
      server: "kota",
      reconnectStatus: "degraded",
      reconnectAttempts: 5,
      userAction: "Run /kota restart",
      agentMessage: "Tell the user.",
    });
    expect(isGovernorError(e) && isErrorCategory(e, "connection_lost")).toBe(true);
    expect(e.toJSON()).toMatchObject({
      error: "server_connection_lost",
      recoverable: true,
      reconnect_status: "degraded",
      reconnect_attempts: 5,
      user_action: "Run /kota restart",
    });
    expect(failure("kota_search", e).details.error).toMatchObject({ error: "server_connection_lost" });
  });
});

describe("formatServerStatus", () => {
  it("shows state, uptime, reconnects and the last error", () => {
    const text = formatServerStatus({
      name: "kota",
      state: "running",
      stateForMs: 5_000,
      uptimeMs: 65_000,
      pid: 42,
      serverVersion: { name: "kotadb", version: "2.0" },
      toolCount: 8,
      inFlight: 0,
      queued: 0,
      reconnectAttempts: 0,
      maxReconnectAttempts: 5,
      reconnects: [{ at: 0, reason: "was killed by SIGKILL unexpectedly", attempts: 1, ok: true, durationMs: 420 }],
      lastError: { message: "boom", code: "GOV_CONNECTION_LOST", at: 0 },
    });
    expect(text).toContain("kota: running (pid 42), up 1m5s");
    expect(text).toContain("reconnects (1)");
    expect(text).toContain("last error: boom");
  });

  it("shows a server's own name and version (kota_status, /kota status) with control characters escaped and cut to 200 characters", () => {
    const osc = "\u001b]52;c;aGVsbG8=\u0007";
    const text = formatServerStatus({
      name: "kota",
      state: "running",
      stateForMs: 0,
      serverVersion: { name: `evil${osc}`, version: `1.0${"9".repeat(10_000)}` },
      toolCount: 1,
      inFlight: 0,
      queued: 0,
      reconnectAttempts: 0,
      maxReconnectAttempts: 5,
      reconnects: [],
      lastError: { message: `no ${osc}`, code: "GOV_MCP", at: 0, stderrTail: `tail ${osc}` },
    });
    expect(text).toContain("server: evil\\u001b]52;c;aGVsbG8=\\u0007 1.0999");
    expect(text).toContain("last error: no \\u001b]52");
    expect(text).toContain("stderr: tail \\u001b]52");
    expect(text).not.toContain("\u001b");
    expect(text.length).toBeLessThan(1_000);
    const diff = diffSnapshots(
      { serverVersion: { name: "a", version: "1" }, tools: [], extra: {} },
      { serverVersion: { name: osc, version: "2" }, tools: [], extra: {} },
    );
    expect(diff).toEqual(["server version changed: a 1 -> \\u001b]52;c;aGVsbG8=\\u0007 2"]);
  });
});

describe("ChildSignalPool", () => {
  it("reuses a child only after stripping what was added to it, so a later abort cancels only the current call", async () => {
    const { ChildSignalPool } = await import("../../../../lib/mcp/child-signal-pool.ts");
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

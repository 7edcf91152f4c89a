/** The status text of a managed server (/kota status, kota_status), with untrusted server strings made visible. */
import { describe, expect, it } from "vitest";
import { formatServerStatus } from "../../../../lib/mcp/server-status.ts";
import { diffSnapshots } from "../../../../lib/mcp/state-cache.ts";

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

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { classifyError, ConnectionLostError, isGovernorError, isErrorCategory, tail, timedOut, failure, assertNever, type ToolObservation } from "../../../core/index.ts";

const sys = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`${code} happened`), { code, ...extra });

describe("classifyError", () => {
  it.each([
    [sys("ENOENT", { syscall: "spawn bun", path: "bun" }), "spawn", false],
    [sys("EPIPE"), "connection_lost", true],
    [sys("ECONNRESET"), "network", true],
    [new Error("MCP error -32000: Connection closed"), "connection_lost", true],
    [Object.assign(new Error("Connection closed"), { code: -32000 }), "connection_lost", true],
    [Object.assign(new Error("Request timed out"), { code: -32001 }), "timeout", true],
    [Object.assign(new Error("Missing required parameter: query"), { code: -32603 }), "invalid_input", false],
    [Object.assign(new Error("internal failure"), { code: -32603 }), "mcp", false],
    [Object.assign(new Error("nope"), { status: 401 }), "auth", false],
    [Object.assign(new Error("slow down"), { status: 429, headers: { "retry-after": "2" } }), "rate_limit", true],
    [{ isError: true, content: [{ type: "text", text: "file missing" }] }, "mcp", false],
    [new Error("something odd"), "unknown", false],
  ])("%s -> %s", (raw, category, recoverable) => {
    const e = classifyError(raw, { subject: "kota_search", command: "bun" });
    expect(e.category).toBe(category);
    expect(e.recoverable).toBe(recoverable);
    expect(e.agentMessage.length).toBeGreaterThan(10);
  });

  it("says what to install when the command is missing", () => {
    const e = classifyError(sys("ENOENT", { syscall: "spawn bun" }), { subject: "kota_search", command: "bun", installHint: "Bun (https://bun.sh)" });
    expect(e.message).toBe("command not found: bun");
    expect(e.agentMessage).toMatch(/Install Bun \(https:\/\/bun\.sh\)/);
  });

  it("reads retry-after from headers and from text", () => {
    expect(classifyError(Object.assign(new Error("x"), { status: 429, headers: { "retry-after": "2" } })).retryAfterMs).toBe(2000);
    expect(classifyError(new Error("rate limit exceeded, retry after 1500ms")).retryAfterMs).toBe(1500);
  });

  it("maps zod failures to invalid_input with the key path", () => {
    const parsed = z.object({ limit: z.number() }).safeParse({ limit: "x" });
    const e = classifyError(parsed.error);
    expect(e.category).toBe("invalid_input");
    expect(e.message).toMatch(/limit: /);
  });

  it("keeps a stderr tail of at most 500 characters", () => {
    const e = classifyError(sys("EPIPE"), { stderrTail: tail("x".repeat(2000) + "LAST") });
    expect(e.stderrTail).toHaveLength(500);
    expect(e.stderrTail!.endsWith("LAST")).toBe(true);
  });

  it("guards work across copies (brand symbol, not instanceof)", () => {
    const e = new ConnectionLostError("gone", { agentMessage: "retry" });
    const foreign = Object.assign(Object.create(null), { [Symbol.for("pi-governor.error")]: true, category: "timeout" });
    expect(isGovernorError(e)).toBe(true);
    expect(isGovernorError(foreign)).toBe(true);
    expect(isErrorCategory(foreign, "timeout")).toBe(true);
    expect(isGovernorError(new Error("plain"))).toBe(false);
    expect(classifyError(e)).toBe(e);
  });
});

describe("observations", () => {
  it("TIMEOUT_EXCEEDED carries the seed's message with the real limit", () => {
    expect(timedOut("run_command", 300_000).message).toBe("Tool exceeded the 300s timeout limit. Reassess strategy.");
    expect(timedOut("x", 1500).message).toBe("Tool exceeded the 1.5s timeout limit. Reassess strategy.");
  });

  it("switches exhaustively over status", () => {
    const describe = (o: ToolObservation): string => {
      switch (o.status) {
        case "SUCCESS":
          return "ok";
        case "TIMEOUT_EXCEEDED":
          return `late ${o.timeoutMs}`;
        case "ERROR":
          return o.error.category;
        default:
          return assertNever(o);
      }
    };
    expect(describe(timedOut("x", 5))).toBe("late 5");
    expect(describe(failure("x", classifyError(sys("EPIPE"))))).toBe("connection_lost");
  });
});

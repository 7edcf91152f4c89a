import { describe, expect, it } from "vitest";
import { z } from "zod";
import { classifyError, ConnectionLostError, isGovernorError, PluginError, timedOut, failure, type ToolObservation } from "pi-governor";
import { isErrorCategory, isPluginError } from "../../../core/errors.ts";
import { tail } from "../../../core/classify.ts";
import { assertNever } from "../../../core/observation.ts";

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

  it.each([
    ["error at line 401"],
    ["invalid timeout parameter"],
    ["quota of 5 files reached"],
    ["unexpected token near EOF marker in config.json"],
    ["token expired while parsing the authentication section"],
    ["limit must be a positive number"],
  ])("keeps a message that only mentions a risky word unknown: %s", (text) => {
    expect(classifyError(new Error(text)).category).toBe("unknown");
  });

  it.each([
    [new Error("HTTP 401 from https://api.example.com"), "auth"],
    [new Error("request failed with status code 403"), "auth"],
    [new Error("401 Unauthorized"), "auth"],
    [new Error("status 429: slow down"), "rate_limit"],
    [new Error("429 Too Many Requests"), "rate_limit"],
    [new Error("You exceeded your current quota"), "rate_limit"],
    [new Error("ETIMEDOUT connecting to 10.0.0.1:443"), "timeout"],
    [new Error("MCP error -32001: Request timed out"), "timeout"],
    [new Error("EOF"), "connection_lost"],
    [new Error("read: unexpected EOF"), "connection_lost"],
    [new Error("socket hang up"), "connection_lost"],
    [new Error("Not connected"), "connection_lost"],
    // Structured facts decide before any text: the MCP SDK's HTTP errors put the status in `code`,
    // fetch puts the system error on `cause`, AbortSignal.timeout() rejects with a TimeoutError.
    [Object.assign(new Error("Error POSTing to endpoint"), { code: 401 }), "auth"],
    [Object.assign(new Error("request failed"), { response: { status: 429 } }), "rate_limit"],
    [new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }) }), "network"],
    [new DOMException("The operation was aborted due to timeout", "TimeoutError"), "timeout"],
    [Object.assign(new Error("Parameter 'limit' must be between 1 and 100"), { code: -32602 }), "invalid_input"],
    [{ isError: true, content: [{ type: "text", text: "429 Too Many Requests, retry after 0.05s" }] }, "rate_limit"],
    [{ isError: true, content: [{ type: "text", text: "ECONNRESET: socket hang up" }] }, "network"],
    [{ isError: true, content: [{ type: "text", text: "no rows: quota of 5 files reached" }] }, "mcp"],
  ])("classifies %s as %s from a status, a code or an anchored phrase", (raw, category) => {
    expect(classifyError(raw).category).toBe(category);
  });

  it("classifies a PluginError by its cause and names the plugin and hook", () => {
    const plain = new PluginError("acme:audit", "toolCall", new Error("audit log is read-only"));
    expect(isPluginError(plain)).toBe(true);
    expect(isGovernorError(plain)).toBe(false);
    const e = classifyError(plain, { subject: "deploy" });
    expect(e.category).toBe("unknown");
    expect(e.message).toBe('deploy: plugin "acme:audit" failed in hook "toolCall": audit log is read-only');
    expect(e.toJSON()).toMatchObject({ code: "GOV_UNKNOWN", category: "unknown" });
    const transient = classifyError(new PluginError("acme:proxy", "toolCall", Object.assign(new Error("reset"), { code: "ECONNRESET" })));
    expect(transient.category).toBe("network");
    expect(transient.recoverable).toBe(true);
    expect(transient.message).toMatch(/plugin "acme:proxy"/);
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
  it("TIMEOUT_EXCEEDED carries the agent-facing message with the real limit", () => {
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

/**
 * The governed error classes: stable codes and categories, recoverable defaults, the JSON shape for
 * logs, guards that work across two loaded copies of the package, PluginError's message and errorText.
 */
import { describe, expect, it, vi } from "vitest";
import {
  AuthError,
  BudgetError,
  CircuitOpenError,
  ConnectionLostError,
  errorText,
  GovernorError,
  InvalidInputError,
  isErrorCategory,
  isGovernorError,
  isPluginError,
  McpError,
  NetworkError,
  PipelineError,
  PluginError,
  RateLimitError,
  SpawnError,
  TimeoutError,
  UnknownError,
} from "../../../core/errors.ts";

const o = { agentMessage: "do the next thing" };

describe("governed error classes", () => {
  it("each class has its stable code, category, name and recoverable default", () => {
    const cases: Array<[GovernorError, string, string, boolean]> = [
      [new AuthError("m", o), "GOV_AUTH", "auth", false],
      [new RateLimitError("m", o), "GOV_RATE_LIMIT", "rate_limit", true],
      [new TimeoutError("m", 5_000, o), "GOV_TIMEOUT", "timeout", true],
      [new SpawnError("m", o), "GOV_SPAWN", "spawn", false],
      [new ConnectionLostError("m", o), "GOV_CONNECTION_LOST", "connection_lost", true],
      [new McpError("m", o), "GOV_MCP", "mcp", false],
      [new NetworkError("m", o), "GOV_NETWORK", "network", true],
      [new InvalidInputError("m", o), "GOV_INVALID_INPUT", "invalid_input", false],
      [new BudgetError("m", o), "GOV_BUDGET", "budget", false],
      [new CircuitOpenError("m", o), "GOV_CIRCUIT_OPEN", "circuit_open", true],
      [new UnknownError("m", o), "GOV_UNKNOWN", "unknown", false],
    ];
    for (const [e, code, category, recoverable] of cases) {
      expect([e.code, e.category, e.recoverable, e.retried, e.agentMessage], code).toEqual([code, category, recoverable, 0, "do the next thing"]);
      expect(e.name).toBe(e.constructor.name);
      expect(e).toBeInstanceOf(Error);
    }
  });

  it("the caller may override recoverable, and extra fields are kept", () => {
    const e = new AuthError("m", { ...o, recoverable: true });
    expect(e.recoverable).toBe(true);
    expect(new TimeoutError("m", 1_500, o).timeoutMs).toBe(1_500);
    expect(new McpError("m", { ...o, rpcCode: -32602 }).rpcCode).toBe(-32602);
    expect(new McpError("m", o).rpcCode).toBeUndefined();
    const cause = new Error("raw");
    expect(new NetworkError("m", { ...o, cause }).cause).toBe(cause);
    expect(new NetworkError("m", o).cause).toBeUndefined();
  });

  it("toJSON has the fields for logs, and the optional ones only when set", () => {
    expect(new NetworkError("reset", o).toJSON()).toEqual({ code: "GOV_NETWORK", category: "network", message: "reset", recoverable: true, retried: 0 });
    const e = new RateLimitError("slow down", { ...o, retried: 2, stderrTail: "429", retryAfterMs: 0 });
    expect(e.toJSON()).toEqual({
      code: "GOV_RATE_LIMIT",
      category: "rate_limit",
      message: "slow down",
      recoverable: true,
      retried: 2,
      stderrTail: "429",
      retryAfterMs: 0,
    });
    e.retried = 3;
    expect(e.toJSON().retried).toBe(3);
  });
});

describe("guards", () => {
  it("isGovernorError and isErrorCategory match governed errors only", () => {
    const e = new TimeoutError("slow", 10, o);
    expect(isGovernorError(e)).toBe(true);
    expect(isErrorCategory(e, "timeout")).toBe(true);
    expect(isErrorCategory(e, "network")).toBe(false);
    for (const v of [new Error("x"), null, undefined, "GOV_TIMEOUT", { code: "GOV_TIMEOUT", category: "timeout" }, new PluginError("p", "context", e)]) {
      expect(isGovernorError(v)).toBe(false);
      expect(isErrorCategory(v, "timeout")).toBe(false);
    }
  });

  it("recognise errors from a second loaded copy of the module, where instanceof fails", async () => {
    vi.resetModules();
    const copy = await import("../../../core/errors.ts");
    expect(copy.TimeoutError).not.toBe(TimeoutError);
    const foreign = new copy.TimeoutError("other copy", 10, o);
    expect(foreign instanceof GovernorError).toBe(false);
    expect(isGovernorError(foreign)).toBe(true);
    expect(isErrorCategory(foreign, "timeout")).toBe(true);
    const foreignPlugin = new copy.PluginError("acme:x", "apply", "boom");
    expect(foreignPlugin instanceof PluginError).toBe(false);
    expect(isPluginError(foreignPlugin)).toBe(true);
  });
});

describe("PluginError", () => {
  it("names the plugin and the hook, or the command, and keeps the cause", () => {
    const cause = new Error("bad state");
    const e = new PluginError("acme:audit", "toolCall", cause);
    expect(e.message).toBe('plugin "acme:audit" failed in hook "toolCall": bad state');
    expect([e.name, e.code, e.pluginName, e.hookName, e.cause]).toEqual(["PluginError", "GOV_PLUGIN", "acme:audit", "toolCall", cause]);
    expect(new PluginError("acme:audit", "command /kota pin", "nope").message).toBe('plugin "acme:audit" failed in command /kota pin: nope');
    expect(isPluginError(e)).toBe(true);
    expect(isPluginError(new Error("x"))).toBe(false);
  });
});

describe("PipelineError and errorText", () => {
  it("PipelineError carries its code", () => {
    const e = new PipelineError("GOV_SEALED", "tap after seal");
    expect([e.name, e.code, e.message]).toEqual(["PipelineError", "GOV_SEALED", "tap after seal"]);
  });

  it("errorText gives the message of anything thrown, without a stack, and never throws", () => {
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText("plain")).toBe("plain");
    expect(errorText({ code: 1 })).toBe('{"code":1}');
    expect(errorText(42)).toBe("42");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(errorText(cyclic)).toBe("[object Object]");
    expect(errorText(10n)).toBe("10");
    // Values without JSON still give a string (a thrown undefined, a symbol).
    expect(errorText(undefined)).toBe("undefined");
    expect(errorText(Symbol("s"))).toBe("Symbol(s)");
  });
});

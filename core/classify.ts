import {
  AuthError,
  ConnectionLostError,
  GovernorError,
  InvalidInputError,
  McpError,
  NetworkError,
  RateLimitError,
  SpawnError,
  TimeoutError,
  UnknownError,
  errorText,
  isGovernorError,
} from "./errors.ts";

/** What the classifier knows besides the raw failure. */
export interface ClassifyContext {
  /** The tool or server involved, for the message. */
  subject?: string;
  /** The server's command, for "not installed" advice. */
  command?: string;
  /** Tail of the server's stderr, attached to spawn and crash errors. */
  stderrTail?: string;
  /** What to install when the command is missing, e.g. "Bun (https://bun.sh)". */
  installHint?: string;
}

/** Last `max` characters of a process's stderr, the way errors carry it. Default 500. */
export function tail(text: string | undefined, max = 500): string | undefined {
  if (!text) return undefined;
  const trimmed = text.trimEnd();
  return trimmed.length > max ? trimmed.slice(-max) : trimmed;
}

const NETWORK_CODES = new Set(["ECONNRESET", "ETIMEDOUT", "ECONNREFUSED", "EAI_AGAIN", "ENOTFOUND", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_SOCKET"]);
const BROKEN_PIPE_CODES = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

function field(raw: unknown, key: string): unknown {
  return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
}

function retryAfter(raw: unknown, message: string): number | undefined {
  const headers = field(raw, "headers") as Record<string, string> | undefined;
  const header = headers?.["retry-after"] ?? (field(raw, "retryAfter") as string | number | undefined);
  if (header !== undefined) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(String(header));
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  const m = /retry[- ]after[:= ]+(\d+(?:\.\d+)?)\s*(ms|s)?/i.exec(message);
  if (m) return Number(m[1]) * (m[2]?.toLowerCase() === "ms" ? 1 : 1000);
  return undefined;
}

/**
 * Maps any raw failure to a {@link GovernorError} with a category, a recoverable flag and an
 * agent-facing next step. Handles Node system errors (ENOENT, EPIPE, ECONNRESET ...), the MCP SDK's
 * errors ("Connection closed", JSON-RPC -32000/-32001/-32603), HTTP-style 401/403/429 statuses,
 * `isError` tool results (pass `{ isError: true, content }`) and zod validation failures.
 */
export function classifyError(raw: unknown, ctx: ClassifyContext = {}): GovernorError {
  if (isGovernorError(raw)) return raw;
  const message = errorText(raw);
  const subject = ctx.subject ?? "the tool";
  const base = { cause: raw, ...(ctx.stderrTail ? { stderrTail: ctx.stderrTail } : {}) };
  const code = field(raw, "code");
  const status = Number(field(raw, "status") ?? field(raw, "statusCode"));

  if (field(raw, "isError") === true) {
    const text = toolErrorText(raw);
    // A server that reports a transient condition in an isError result (rate limit, reset
    // connection) gets the transient category, so retry and the breaker treat it like a thrown one.
    const transient = transientFromText(text, subject, base);
    if (transient) return transient;
    return new McpError(`${subject} returned an error: ${text}`, {
      ...base,
      agentMessage: "Read the error, fix the arguments or approach, and do not repeat the same call unchanged.",
    });
  }
  if (field(raw, "name") === "ZodError" || Array.isArray(field(raw, "issues"))) {
    return new InvalidInputError(`invalid arguments: ${zodSummary(raw)}`, {
      ...base,
      agentMessage: "Fix the arguments as described and call again.",
    });
  }
  if (code === "ENOENT" && (field(raw, "syscall") === "spawn" || String(field(raw, "syscall") ?? "").startsWith("spawn") || ctx.command)) {
    const hint = ctx.installHint ? ` Install ${ctx.installHint}, or set the command in the pi-governor config.` : " Install it or set the command in the pi-governor config.";
    return new SpawnError(`command not found: ${ctx.command ?? field(raw, "path") ?? "server"}`, {
      ...base,
      agentMessage: `The server for ${subject} is not installed.${hint} Continue without this tool.`,
    });
  }
  if (code === "EACCES" && ctx.command) {
    return new SpawnError(`permission denied starting ${ctx.command}`, {
      ...base,
      agentMessage: `The server for ${subject} cannot be executed (permission denied). Tell the user; continue without this tool.`,
    });
  }
  if (typeof code === "string" && BROKEN_PIPE_CODES.has(code)) {
    return connectionLost(`${subject}: server pipe broken (${code})`, base);
  }
  if (typeof code === "string" && NETWORK_CODES.has(code)) {
    return new NetworkError(`${subject}: network error ${code}`, {
      ...base,
      agentMessage: "A transient network error occurred; trying again shortly may succeed.",
    });
  }
  if (status === 401 || status === 403 || /\b(401|unauthori[sz]ed|authentication|invalid api key|forbidden)\b/i.test(message)) {
    return new AuthError(`${subject}: authentication failed: ${message}`, {
      ...base,
      agentMessage: "Credentials are missing or invalid. Ask the user to fix them; do not retry.",
    });
  }
  if (status === 429 || /\b(429|rate.?limit|too many requests|quota)\b/i.test(message)) {
    const after = retryAfter(raw, message);
    return new RateLimitError(`${subject}: rate limited: ${message}`, {
      ...base,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      agentMessage: "The server is rate limiting; wait before calling again or reduce the number of calls.",
    });
  }
  if (code === -32001 || /request timed out|timed? ?out/i.test(message)) {
    return new TimeoutError(`${subject}: request timed out: ${message}`, Number(field(raw, "timeoutMs") ?? 0), {
      ...base,
      agentMessage: "The call took too long. Reassess strategy: narrow the request instead of repeating it.",
    });
  }
  if (code === -32000 || /connection closed|transport closed|not connected|socket hang up|EOF/i.test(message)) {
    return connectionLost(`${subject}: ${message}`, base);
  }
  if (code === -32602 || /missing required parameter|invalid param|must be (between|one of|a )/i.test(message)) {
    return new InvalidInputError(`${subject}: ${message}`, {
      ...base,
      agentMessage: "Fix the arguments as the error says and call again.",
    });
  }
  if (typeof code === "number") {
    return new McpError(`${subject}: server error ${code}: ${message}`, {
      ...base,
      rpcCode: code,
      agentMessage: "The server rejected the call. Read the error, adjust the arguments or approach; do not repeat it unchanged.",
    });
  }
  return new UnknownError(`${subject}: ${message}`, {
    ...base,
    agentMessage: "An unexpected error occurred. Try a different approach or tell the user.",
  });
}

const TRANSIENT_TEXT = /\b(ECONNRESET|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN|socket hang up|network error)\b/i;

/** The transient category an error text names (rate limit, network), or undefined. */
function transientFromText(text: string, subject: string, base: { cause: unknown; stderrTail?: string }): GovernorError | undefined {
  if (/\b(429|rate.?limit|too many requests)\b/i.test(text)) {
    const after = retryAfter(undefined, text);
    return new RateLimitError(`${subject} returned an error: ${text}`, {
      ...base,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      agentMessage: "The server is rate limiting; wait before calling again or reduce the number of calls.",
    });
  }
  if (TRANSIENT_TEXT.test(text)) {
    return new NetworkError(`${subject} returned an error: ${text}`, {
      ...base,
      agentMessage: "A transient network error occurred; trying again shortly may succeed.",
    });
  }
  return undefined;
}

function connectionLost(message: string, base: { cause: unknown; stderrTail?: string }): ConnectionLostError {
  return new ConnectionLostError(message, {
    ...base,
    agentMessage: "The server connection was lost; it is being restarted. Try the call again in a moment.",
  });
}

function toolErrorText(raw: unknown): string {
  const content = field(raw, "content");
  if (Array.isArray(content)) {
    const text = content
      .map((b) => (typeof b === "object" && b && (b as { type?: string }).type === "text" ? String((b as { text: unknown }).text) : ""))
      .filter(Boolean)
      .join("\n");
    if (text) return text.length > 500 ? `${text.slice(0, 500)}...` : text;
  }
  return "no error text";
}

function zodSummary(raw: unknown): string {
  const issues = field(raw, "issues") as Array<{ path?: PropertyKey[]; message?: string }> | undefined;
  if (!issues?.length) return errorText(raw);
  return issues.map((i) => `${i.path?.length ? i.path.map(String).join(".") : "(root)"}: ${i.message ?? "invalid"}`).join("; ");
}

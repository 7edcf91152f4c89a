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
  isPluginError,
  type PluginError,
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

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ETIMEDOUT",
  "ECONNREFUSED",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const BROKEN_PIPE_CODES = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

/*
 * Text patterns, used only when no structured fact (error code, HTTP status, JSON-RPC code) decides.
 * Each one names a status or a protocol phrase, never a bare keyword: "error at line 401", "invalid
 * timeout parameter", "quota of 5 files reached" and "EOF" inside a sentence are not failures of that
 * kind. test/unit/core/classify-property.test.ts holds their false-positive rate on neutral text.
 */
/** "HTTP 401", "HTTP/1.1 403", "status 401", "status code: 403"; reason phrases as HTTP spells them: "401 Unauthorized", "403 Forbidden". */
const AUTH_TEXT = [
  /\b(?:HTTP(?:\/[\d.]+)?|status(?: code)?:?)\s*(?:401|403)\b|\binvalid api[ _-]?key\b|\bauthentication (?:failed|required)\b/i,
  /\b401 Unauthori[sz]ed\b|\b403 Forbidden\b/,
];
/** "HTTP 429", "status 429", "429 Too Many Requests", "rate limit exceeded", "rate limited", "quota exceeded". */
const RATE_LIMIT_TEXT = [
  /\b(?:HTTP(?:\/[\d.]+)?|status(?: code)?:?)\s*429\b|\btoo many requests\b|\brate[ -]?limit(?:ed\b| exceeded\b| reached\b)|\bquota exceeded\b|\bexceeded (?:your |the )?(?:current )?quota\b/i,
  /\b429 Too Many Requests\b/,
];
/** The MCP SDK's "Request timed out", "ETIMEDOUT" as the message's first word, "operation timed out". */
const TIMEOUT_TEXT = /\b(?:request|operation|call|connection) timed out\b|^ETIMEDOUT\b/i;
/** The MCP SDK's "Connection closed" / "Not connected", Node's "socket hang up", "EOF" as the whole message, "unexpected EOF". */
const CONNECTION_LOST_TEXT = /\bconnection closed\b|\btransport closed\b|^(?:MCP error -?\d+: )?not connected\b|\bsocket hang up\b|^EOF$|\bunexpected EOF\b/i;
/** Validation wording of MCP servers and JSON-RPC "Invalid params". */
const INVALID_INPUT_TEXT =
  /\bmissing required (?:parameter|argument)\b|^(?:MCP error -?\d+: )?invalid (?:params|arguments)\b|\bparameter '[^']*' must be\b|\bmust be (?:between \S+ and|one of)\b/i;
/** Node system error codes named in text (case-sensitive: the codes are upper case), or "network error". */
const TRANSIENT_TEXT = /(?:^|[\s:(])(?:ECONNRESET|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN)\b|\bsocket hang up\b|^network error\b/;

function matches(patterns: readonly RegExp[], text: string): boolean {
  return patterns.some((p) => p.test(text));
}

function field(raw: unknown, key: string): unknown {
  return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
}

/** An HTTP status from `status`/`statusCode`/`response.status`, or a positive HTTP-range `code` (the MCP SDK's HTTP errors). */
function httpStatus(raw: unknown): number | undefined {
  for (const value of [field(raw, "status"), field(raw, "statusCode"), field(field(raw, "response"), "status"), field(raw, "code")]) {
    const n = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
    if (typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599) return n;
  }
  return undefined;
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
 * agent-facing next step. Structured facts decide first: Node system error codes (ENOENT, EPIPE,
 * ECONNRESET ..., also on `cause`), JSON-RPC codes of the MCP SDK (-32000 connection closed, -32001
 * timeout, -32602 invalid params), HTTP statuses (`status`, `statusCode`, `response.status`, an
 * HTTP-range `code`), `isError` tool results (pass `{ isError: true, content }`), zod validation
 * failures and a {@link PluginError} (classified by its cause, naming the plugin). Only then anchored
 * text patterns ("HTTP 429", "Request timed out"); anything else is `unknown`.
 */
export function classifyError(raw: unknown, ctx: ClassifyContext = {}): GovernorError {
  if (isGovernorError(raw)) return raw;
  if (isPluginError(raw)) return fromPlugin(raw, ctx);
  const message = errorText(raw);
  const subject = ctx.subject ?? "the tool";
  const base = { cause: raw, ...(ctx.stderrTail ? { stderrTail: ctx.stderrTail } : {}) };
  // fetch() and undici put the system error on `cause` ("fetch failed" { cause: { code: "ECONNREFUSED" } }).
  const code = field(raw, "code") ?? field(field(raw, "cause"), "code");
  const status = httpStatus(raw);

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
  if (code === "ENOENT" && (String(field(raw, "syscall") ?? "").startsWith("spawn") || ctx.command)) {
    const hint = ctx.installHint
      ? ` Install ${ctx.installHint}, or set the command in the pi-governor config.`
      : " Install it or set the command in the pi-governor config.";
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
  if (typeof code === "string" && BROKEN_PIPE_CODES.has(code)) return connectionLost(`${subject}: server pipe broken (${code})`, base);
  if (typeof code === "string" && NETWORK_CODES.has(code)) return network(`${subject}: network error ${code}`, base);
  if (status === 401 || status === 403 || field(raw, "name") === "UnauthorizedError") return auth(subject, message, base);
  if (status === 429) return rateLimited(`${subject}: rate limited: ${message}`, retryAfter(raw, message), base);
  if (code === -32001 || field(raw, "name") === "TimeoutError") return timeout(subject, message, raw, base);
  if (code === -32000) return connectionLost(`${subject}: ${message}`, base);
  if (code === -32602) return invalidInput(subject, message, base);

  if (matches(AUTH_TEXT, message)) return auth(subject, message, base);
  if (matches(RATE_LIMIT_TEXT, message)) return rateLimited(`${subject}: rate limited: ${message}`, retryAfter(raw, message), base);
  if (TIMEOUT_TEXT.test(message)) return timeout(subject, message, raw, base);
  if (CONNECTION_LOST_TEXT.test(message)) return connectionLost(`${subject}: ${message}`, base);
  if (INVALID_INPUT_TEXT.test(message)) return invalidInput(subject, message, base);
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

type Base = { cause: unknown; stderrTail?: string };

/**
 * A plugin's failure, classified by its cause (a network error inside a wrapper stays `network`), with
 * the plugin and hook in the message so the model and the user see who failed.
 */
function fromPlugin(error: PluginError, ctx: ClassifyContext): GovernorError {
  const inner = classifyError(error.cause, ctx);
  const subject = ctx.subject ?? "the tool";
  return new GovernorError(inner.code, inner.category, `${subject}: ${error.message}`, {
    recoverable: inner.recoverable,
    agentMessage: inner.agentMessage,
    cause: error,
    retried: inner.retried,
    ...(inner.stderrTail !== undefined ? { stderrTail: inner.stderrTail } : {}),
    ...(inner.retryAfterMs !== undefined ? { retryAfterMs: inner.retryAfterMs } : {}),
  });
}

function auth(subject: string, message: string, base: Base): AuthError {
  return new AuthError(`${subject}: authentication failed: ${message}`, {
    ...base,
    agentMessage: "Credentials are missing or invalid. Ask the user to fix them; do not retry.",
  });
}

function rateLimited(message: string, after: number | undefined, base: Base): RateLimitError {
  return new RateLimitError(message, {
    ...base,
    ...(after !== undefined ? { retryAfterMs: after } : {}),
    agentMessage: "The server is rate limiting; wait before calling again or reduce the number of calls.",
  });
}

function timeout(subject: string, message: string, raw: unknown, base: Base): TimeoutError {
  return new TimeoutError(`${subject}: request timed out: ${message}`, Number(field(raw, "timeoutMs") ?? 0), {
    ...base,
    agentMessage: "The call took too long. Reassess strategy: narrow the request instead of repeating it.",
  });
}

function invalidInput(subject: string, message: string, base: Base): InvalidInputError {
  return new InvalidInputError(`${subject}: ${message}`, {
    ...base,
    agentMessage: "Fix the arguments as the error says and call again.",
  });
}

function network(message: string, base: Base): NetworkError {
  return new NetworkError(message, {
    ...base,
    agentMessage: "A transient network error occurred; trying again shortly may succeed.",
  });
}

/** The transient category an error text names (rate limit, network), or undefined. */
function transientFromText(text: string, subject: string, base: Base): GovernorError | undefined {
  if (matches(RATE_LIMIT_TEXT, text)) return rateLimited(`${subject} returned an error: ${text}`, retryAfter(undefined, text), base);
  if (TRANSIENT_TEXT.test(text)) return network(`${subject} returned an error: ${text}`, base);
  return undefined;
}

function connectionLost(message: string, base: Base): ConnectionLostError {
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

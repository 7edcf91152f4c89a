/**
 * Error classes with stable string codes. Guards use a registry-wide symbol brand rather than
 * `instanceof`, so they work when two copies of pi-governor are loaded (a global and a project
 * extension, or jiti's module cache next to node's).
 */

/** Why a governed tool call failed. Stable: logged to SQLite and matched by plugins. */
export type ErrorCategory =
  | "auth"
  | "rate_limit"
  | "timeout"
  | "spawn"
  | "connection_lost"
  | "mcp"
  | "network"
  | "invalid_input"
  | "budget"
  | "circuit_open"
  | "unknown";

/**
 * Every code pi-governor's errors carry: the closed set (docs/plugins.md, "Error codes", says when
 * each is raised). A {@link GovernorError}'s code names its category; a {@link PipelineError}'s names
 * the misuse of the pipeline API; a {@link PluginError} is always `GOV_PLUGIN`.
 */
export type GovernorErrorCode =
  // GovernorError, one per category (ErrorCategory)
  | "GOV_AUTH"
  | "GOV_RATE_LIMIT"
  | "GOV_TIMEOUT"
  | "GOV_SPAWN"
  | "GOV_CONNECTION_LOST"
  | "GOV_MCP"
  | "GOV_NETWORK"
  | "GOV_INVALID_INPUT"
  | "GOV_BUDGET"
  | "GOV_CIRCUIT_OPEN"
  | "GOV_UNKNOWN"
  // GovernorError of the blob store: its folder cannot be used (category invalid_input)
  | "GOV_BLOB_DIR"
  // PluginError
  | "GOV_PLUGIN"
  // PipelineError: misuse of the pipeline API
  | "GOV_SEALED"
  | "GOV_TAP_NAME"
  | "GOV_TAP_STAGE"
  | "GOV_TAP_BEFORE"
  | "GOV_TAP_TIE"
  | "GOV_NEXT_TWICE"
  | "GOV_TOOL_NAME"
  | "GOV_TOOL_DUPLICATE"
  | "GOV_UNKNOWN_TOOL"
  | "GOV_COMMAND_NAME"
  | "GOV_COMMAND_DUPLICATE"
  | "GOV_UNKNOWN_COMMAND";

const BRAND = Symbol.for("pi-governor.error");

/** Fields every governed error carries. */
export interface GovernorErrorOptions {
  /** Whether trying again (now or after a fix) can succeed. */
  recoverable: boolean;
  /** What the model should do next. Shown to the model; keep it imperative and concrete. */
  agentMessage: string;
  /** Retries already spent on this call when the error was final. Default 0. */
  retried?: number;
  /** Last characters (at most 500) of a child process's stderr, when one was involved. */
  stderrTail?: string;
  /** Server-provided delay before a retry may succeed, in milliseconds. */
  retryAfterMs?: number;
  /** The raw failure this error classifies. */
  cause?: unknown;
}

/** Base class of every error pi-governor raises or returns. */
export class GovernorError extends Error {
  readonly [BRAND] = true;
  /** Stable machine code, e.g. `GOV_TIMEOUT`. */
  readonly code: GovernorErrorCode;
  readonly category: ErrorCategory;
  readonly recoverable: boolean;
  readonly agentMessage: string;
  retried: number;
  readonly stderrTail?: string;
  readonly retryAfterMs?: number;

  constructor(code: GovernorErrorCode, category: ErrorCategory, message: string, options: GovernorErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.category = category;
    this.recoverable = options.recoverable;
    this.agentMessage = options.agentMessage;
    this.retried = options.retried ?? 0;
    if (options.stderrTail !== undefined) this.stderrTail = options.stderrTail;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** A plain object for logs and tool-result details. */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      category: this.category,
      message: this.message,
      recoverable: this.recoverable,
      retried: this.retried,
      ...(this.stderrTail ? { stderrTail: this.stderrTail } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
    };
  }
}

/** True for any pi-governor error, from any copy of the package. */
export function isGovernorError(value: unknown): value is GovernorError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** True for a governed error of the given category. */
export function isErrorCategory<C extends ErrorCategory>(value: unknown, category: C): value is GovernorError {
  return isGovernorError(value) && value.category === category;
}

type Opts = Omit<GovernorErrorOptions, "recoverable"> & { recoverable?: boolean };

/** Credentials are missing or rejected. Not retried. */
export class AuthError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_AUTH", "auth", message, { recoverable: false, ...o });
  }
}
/** The server asked to slow down; `retryAfterMs` when it said how long. */
export class RateLimitError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_RATE_LIMIT", "rate_limit", message, { recoverable: true, ...o });
  }
}
/** A call or a connect took longer than its limit. */
export class TimeoutError extends GovernorError {
  /** The limit that expired, in milliseconds. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, o: Opts) {
    super("GOV_TIMEOUT", "timeout", message, { recoverable: true, ...o });
    this.timeoutMs = timeoutMs;
  }
}
/** A server program could not be started (missing, exits at once, wrong protocol). */
export class SpawnError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_SPAWN", "spawn", message, { recoverable: false, ...o });
  }
}
/** The transport to a server broke (crash, closed pipe) or the server is degraded. */
export class ConnectionLostError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_CONNECTION_LOST", "connection_lost", message, { recoverable: true, ...o });
  }
}
/** The server answered with an error (JSON-RPC error or an `isError` result). */
export class McpError extends GovernorError {
  /** JSON-RPC error code, when there was one. */
  readonly rpcCode?: number;
  constructor(message: string, o: Opts & { rpcCode?: number }) {
    super("GOV_MCP", "mcp", message, { recoverable: false, ...o });
    if (o.rpcCode !== undefined) this.rpcCode = o.rpcCode;
  }
}
/** A transient network failure (reset, refused, DNS). */
export class NetworkError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_NETWORK", "network", message, { recoverable: true, ...o });
  }
}
/** The arguments were wrong; the model must change them. Never retried. */
export class InvalidInputError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_INVALID_INPUT", "invalid_input", message, { recoverable: false, ...o });
  }
}
/** An output or retry budget was exhausted. Never retried. */
export class BudgetError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_BUDGET", "budget", message, { recoverable: false, ...o });
  }
}
/** A circuit breaker is open: the call was not attempted. */
export class CircuitOpenError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_CIRCUIT_OPEN", "circuit_open", message, { recoverable: true, ...o });
  }
}
/** Anything not classified. */
export class UnknownError extends GovernorError {
  constructor(message: string, o: Opts) {
    super("GOV_UNKNOWN", "unknown", message, { recoverable: false, ...o });
  }
}

const PLUGIN_BRAND = Symbol.for("pi-governor.plugin-error");

/**
 * A plugin threw; carries the plugin and hook names so the culprit is obvious. Not a
 * {@link GovernorError} (it has its own brand): it names who failed, not how. `classifyError` turns it
 * into a governed error from its cause, keeping the plugin's name in the message.
 */
export class PluginError extends Error {
  readonly [PLUGIN_BRAND] = true;
  readonly code = "GOV_PLUGIN" satisfies GovernorErrorCode;
  constructor(
    /** The failing plugin's name, e.g. `acme:audit`. */
    readonly pluginName: string,
    /** Where it failed: a hook name (`context`, `toolCall`), `apply`, or `command /root sub`. */
    readonly hookName: string,
    cause: unknown,
  ) {
    super(`plugin "${pluginName}" failed in ${hookName.startsWith("command ") ? hookName : `hook "${hookName}"`}: ${errorText(cause)}`, { cause });
    this.name = "PluginError";
  }
}

/** True for a {@link PluginError} from any copy of the package. */
export function isPluginError(value: unknown): value is PluginError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PLUGIN_BRAND] === true;
}

/** Misuse of the pipeline API (tap after seal, next() twice, duplicate tool names). */
export class PipelineError extends Error {
  readonly code: GovernorErrorCode;
  constructor(code: GovernorErrorCode, message: string) {
    super(message);
    this.name = "PipelineError";
    this.code = code;
  }
}

/** The message of anything thrown, without a stack. */
export function errorText(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  try {
    // undefined, a function or a symbol have no JSON: their String() is the text.
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

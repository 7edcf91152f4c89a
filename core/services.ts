/**
 * What the host hands every plugin. Plugins never write to the console, call process.exit, or read
 * the wall clock directly: they go through these, so tests can inject fakes.
 */

/** A trusted key a project file set and that was ignored, because the global file does not allow it. */
export interface IgnoredTrustedKey {
  /** The project file that set it. */
  source: string;
  /** Plugin config key, e.g. `kota` ("" for a top-level key: `preset`). */
  section: string;
  /** Top-level key of the section, e.g. `command`. */
  key: string;
}

/** Time source and timers; inject a fake in tests. */
export interface Clock {
  /** Milliseconds, monotonic within a process. */
  now(): number;
  /** Runs `fn` after `ms` milliseconds; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer this clock set. */
  clearTimeout(handle: unknown): void;
}

/** The real clock: `performance.now()` and Node's timers (unref'd so they never hold the process open). */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason as soon as `signal` aborts.
 * The timer and the listener are removed on every path.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The severity of a log record, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** One log line, kept in memory for `/governor status` and forwarded as a pipeline event. */
export interface LogRecord {
  /** How bad it is. */
  level: LogLevel;
  /** Who logged it (a plugin's name, or `governor`). */
  source: string;
  /** The line, for a person. */
  message: string;
  /** Structured details, as the logger was given them. */
  data?: Record<string, unknown>;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * The data of a load warning that turns a feature off for a cause other stages may share: log it
 * with `services.logger.warn(message, { off, why, fix })` while applying.
 */
export interface OffBecause {
  /** What is off, as the end of "..., so X is off": `the execution log`. */
  off: string;
  /** The cause, without a final period: `no SQLite driver loads on Node 20.20.2: ...`. */
  why: string;
  /** What to do, without a final period. */
  fix: string;
}

/** Structured logger handed to plugins. */
export interface Logger {
  /** Detail for whoever debugs the plugin. */
  debug(message: string, data?: Record<string, unknown>): void;
  /** Something the user may want to know. */
  info(message: string, data?: Record<string, unknown>): void;
  /** Something is off or degraded. */
  warn(message: string, data?: Record<string, unknown>): void;
  /** Something failed. */
  error(message: string, data?: Record<string, unknown>): void;
  /** A logger whose records name `source`. */
  child(source: string): Logger;
}

/** A logger that hands each record to `sink`, named by `source` (its children's by theirs); it keeps none. */
export function createLogger(source: string, sink: (record: LogRecord) => void): Logger {
  const make = (src: string): Logger => {
    const log = (level: LogLevel) => (message: string, data?: Record<string, unknown>) =>
      sink({ level, source: src, message, at: Date.now(), ...(data ? { data } : {}) });
    return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error"), child: (s) => make(s) };
  };
  return make(source);
}

/** The user-facing surface (pi's ctx.ui), reduced to what plugins need. Silent without a UI. */
export interface UiBridge {
  /**
   * False in print mode and in an SDK session bound without a UI: confirmations cannot be asked.
   * True in interactive mode and in RPC mode, where pi sends notify/status/confirm to the client as
   * `extension_ui_request` lines (a confirm waits for the client's `extension_ui_response`).
   */
  readonly hasUI: boolean;
  /** Shows a message to the user (default level `info`). */
  notify(message: string, level?: "info" | "warning" | "error"): void;
  /** Sets (or clears with `undefined`) one footer status entry. */
  setStatus(key: string, text: string | undefined): void;
  /** Asks yes/no; resolves false without a UI. */
  confirm(title: string, message: string): Promise<boolean>;
  /**
   * Asks to pick one of `options` (pi's select dialog; in RPC mode a `select` request); resolves the
   * option, or undefined when cancelled or without a UI. Absent on UIs that cannot ask it.
   */
  select?(title: string, options: string[]): Promise<string | undefined>;
  /**
   * Shows `text` in pi's multi-line editor dialog (scrollable; in RPC mode an `editor` request with
   * `prefill`) and resolves what the user submitted, or undefined when cancelled or without a UI.
   * Absent on UIs that cannot show it.
   */
  editor?(title: string, text: string): Promise<string | undefined>;
}

/** A UI that shows nothing: used before the session starts and in tests. */
export const silentUi: UiBridge = {
  hasUI: false,
  notify: () => {},
  setStatus: () => {},
  confirm: async () => false,
};

/**
 * Small, session-scoped records a plugin keeps across `/reload` and resume (pins, the pruning
 * boundary). Backed by pi's custom session entries: append-only, not sent to the model.
 */
export interface SessionStore {
  /** Appends a record of `kind` (namespaced, e.g. `governor:prune-boundary`) to the session. */
  append(kind: string, data: Record<string, unknown>): void;
  /** Every record of `kind` in this session, oldest first. */
  entries(kind: string): Record<string, unknown>[];
}

/** A store that keeps records in memory only (tests, CLI). */
export function memorySessionStore(): SessionStore {
  const records = new Map<string, Record<string, unknown>[]>();
  return {
    append: (kind, data) => void (records.get(kind) ?? records.set(kind, []).get(kind)!).push(data),
    entries: (kind) => [...(records.get(kind) ?? [])],
  };
}

/**
 * A typed name for a value one plugin offers the others (a connection, a runtime, an index). Made by
 * {@link defineService}; the type parameter is what `services.need(key)` returns.
 */
export interface ServiceKey<T> {
  /** Namespaced name, `scope:name` (`kota:runtime`). Two keys with one name are the same service. */
  readonly name: string;
  /** Who provides it, for the message when no plugin in the preset does (`governor:kota`). */
  readonly providedBy?: string;
  /** Type carrier only, never set: keeps `ServiceKey<A>` and `ServiceKey<B>` apart. */
  readonly __value?: (value: T) => T;
}

/**
 * Defines a service key. The providing plugin lists it in `provides` and calls
 * `services.provide(key, value)` in its `apply`; a plugin that uses it lists it in `requires` (or
 * `optional`) and reads it with `services.need(key)` (or `services.maybe(key)`). The host applies
 * providers before their dependents. `providedBy` names the plugin that provides it, for the message
 * a preset without that plugin gets.
 */
export function defineService<T>(name: string, options: { providedBy?: string } = {}): ServiceKey<T> {
  if (!/^[a-z0-9-]+:[a-z0-9-_.]+$/i.test(name)) throw new Error(`service name "${name}" must be namespaced as scope:name, e.g. "acme:index"`);
  return Object.freeze({ name, ...(options.providedBy ? { providedBy: options.providedBy } : {}) });
}

/** Everything a plugin's `apply` may use. */
export interface GovernorServices {
  /** The plugin's logger: its records name the plugin. */
  readonly logger: Logger;
  /** The pipeline's clock (a manual one in tests). */
  readonly clock: Clock;
  /**
   * The session's working directory (pi's `ctx.cwd`, not necessarily `process.cwd()`); a governor is
   * built per cwd, so this never changes under a plugin.
   */
  readonly cwd: string;
  /** pi's agent directory (`~/.pi/agent`, or `PI_CODING_AGENT_DIR`). */
  readonly agentDir: string;
  /** Environment the extension runs with (for passing through to servers explicitly). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The current pi session id ("" before the session starts). */
  sessionId(): string;
  /** The current UI bridge (silent before the session starts). */
  ui(): UiBridge;
  /** The current session's record store (in memory before the session starts). */
  store(): SessionStore;
  /**
   * The slash command plugins hang their subcommands under: `kota` for the kota preset (`/kota pin`),
   * `governor` otherwise. Register with `pipeline.registerCommand(owner, \`${services.commandRoot} pin\`, ...)`.
   */
  readonly commandRoot: string;
  /**
   * Trusted keys a project file set that were ignored (the global file does not allow them), so a
   * plugin can say why the project's program or path is not in force. Empty or absent when none.
   */
  readonly ignoredTrustedKeys?: readonly IgnoredTrustedKey[];
  /**
   * The value of a service this plugin lists in `requires`. The host applied its provider first, so
   * in `apply` and later it is there; throws when the key is not declared in `requires`.
   */
  need<T>(key: ServiceKey<T>): T;
  /**
   * The value of a service this plugin lists in `requires` or `optional`, or undefined when no enabled
   * plugin provides it; throws when the key is not declared.
   */
  maybe<T>(key: ServiceKey<T>): T | undefined;
  /** Offers the value of a service this plugin lists in `provides`; call it in `apply`. Throws for an undeclared key. */
  provide<T>(key: ServiceKey<T>, value: T): void;
}

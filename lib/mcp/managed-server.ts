/**
 * One governed stdio MCP server: lazy start, heartbeat while in use, automatic reconnect with
 * backoff, a degraded mode that fails fast, a recovery queue for calls safe to repeat, a state cache
 * diffed after reconnects, and a clean, idempotent shutdown. See {@link ManagedMcpServer}.
 */
import { classifyError, type Clock, type GovernorError, type Logger, systemClock } from "../../core/index.ts";
import { formatSeconds } from "../../core/observation.ts";
import { isErrorCategory } from "../../core/errors.ts";
import { sleep } from "../../core/services.ts";
import { isSafeToRepeat, scheduledBackoffMs } from "../resilience/index.ts";
import { type ManagedMcpServerConfig, type ResolvedServerConfig, resolveServerConfig } from "./config.ts";
import type { Connector, ExitInfo, McpTool, McpToolResult, ServerConnection } from "./connection-types.ts";
import * as fail from "./failure-messages.ts";
import { Heartbeat } from "./heartbeat.ts";
import { KeepAlive } from "./keep-alive.ts";
import { type AttemptContext, attemptCall, type InFlight, Lost, type McpCallOptions } from "./call-attempt.ts";
import { ChildSignalPool } from "./child-signal-pool.ts";
import { RecoveryQueue } from "./recovery-queue.ts";
import type { ManagedServerEvent, ManagedServerListener, ManagedServerStatus, McpServerState, ReconnectRecord } from "./server-status.ts";
import { diffSnapshots, type ServerSnapshot, snapshotOf } from "./state-cache.ts";
import { startServer } from "./server-start.ts";
import { openStdioConnection } from "./stdio-connection.ts";

/** What the manager is built with besides its config. */
export interface ManagedMcpServerDeps {
  /** Time for backoff, cool-down, queue deadlines and heartbeat. Default: the system clock. */
  clock?: Clock;
  logger?: Logger;
  /** Starts a child. Default: {@link openStdioConnection}. Unit tests inject fakes. */
  connector?: Connector;
}

const HISTORY = 20;

/**
 * A managed stdio MCP server. Never throws raw errors: every rejection is a GovernorError
 * (SpawnError, TimeoutError, ServerConnectionLostError, McpError, ...) or the caller's abort reason.
 *
 * ```ts
 * const server = new ManagedMcpServer({ name: "kota", command: "bun", args: ["x", "kotadb@next", "--stdio"], installHint: "Bun (https://bun.sh)" });
 * const result = await server.callTool("search", { term: "foo" }, { signal, timeoutMs: 30_000 });
 * await server.close();
 * ```
 */
export class ManagedMcpServer {
  /** The server's name (tool prefix, messages). */
  readonly name: string;
  /** The config with defaults filled in. */
  readonly config: ResolvedServerConfig;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly connector: Connector;
  private readonly allowlist: ReadonlySet<string>;
  private readonly listeners = new Set<ManagedServerListener>();
  private readonly inFlight = new Set<InFlight>();
  private readonly signals = new ChildSignalPool();
  /** Held while a caller waits (call, start, restart, close): see keep-alive.ts. */
  private readonly keepAlive = new KeepAlive();
  private readonly queue: RecoveryQueue;
  private current: McpServerState = "stopped";
  private stateSince: number;
  private runningSince: number | undefined;
  private conn: ServerConnection | undefined;
  private heartbeat: Heartbeat | undefined;
  /** Built once per connection: the call path allocates nothing it can share. */
  private attemptCtx: AttemptContext | undefined;
  private toolMap = new Map<string, McpTool>();
  private snapshot: ServerSnapshot | undefined;
  /** Bumped by every start, reconnect, restart and close: stale async work checks it and stops. */
  private epoch = 0;
  private startPromise: Promise<void> | undefined;
  private startAbort: AbortController | undefined;
  private wake: AbortController | undefined;
  private attempts = 0;
  private degradedAt = 0;
  private lastError: { error: GovernorError; at: number } | undefined;
  private readonly history: ReconnectRecord[] = [];
  private notice: string | undefined;
  /** What the last adopt's snapshot lacks compared with the one before (see state-cache.ts). */
  private lostSinceBefore: string[] = [];
  private closing: Promise<void> | undefined;

  constructor(config: ManagedMcpServerConfig, deps: ManagedMcpServerDeps = {}) {
    this.config = resolveServerConfig(config);
    this.name = this.config.name;
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger;
    this.connector = deps.connector ?? openStdioConnection;
    this.allowlist = new Set(this.config.replayTools);
    this.stateSince = this.clock.now();
    this.queue = new RecoveryQueue(this.clock, this.config.queueLimit, this.config.queueDeadlineMs, {
      full: (limit) => fail.queueFull(this.ctx(), limit),
      expired: (ms) => fail.queueExpired(this.ctx(), ms),
    });
  }

  /** The current state. */
  get state(): McpServerState {
    return this.current;
  }

  /** The tools from the last tools/list (empty before the first start). */
  get tools(): McpTool[] {
    return [...this.toolMap.values()];
  }

  /** Adds a listener for state changes, recoveries and degradation; returns the unsubscribe function. */
  subscribe(listener: ManagedServerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts the server if it is not running (idempotent; waits for a start or reconnect in progress).
   * Rejects with the start error (SpawnError, TimeoutError) or a ServerConnectionLostError.
   */
  async start(): Promise<void> {
    const release = this.keepAlive.hold();
    try {
      await this.startLoop();
    } finally {
      release();
    }
  }

  private async startLoop(): Promise<void> {
    for (;;) {
      switch (this.current) {
        case "running":
          return;
        case "closed":
          throw fail.closed(this.ctx());
        case "starting":
          await this.awaitStart(this.startPromise!);
          continue;
        case "reconnecting":
          await this.queue.wait();
          continue;
        case "stopped":
        case "degraded":
          await this.awaitStart(this.beginStart(this.current === "stopped" ? "first use" : "start requested"));
          continue;
      }
    }
  }

  /** Starts if needed and returns the tools the server offers. */
  async listTools(): Promise<McpTool[]> {
    await this.start();
    return this.tools;
  }

  /** True when `tool` may be held and repeated across a reconnect (annotations or `replayTools`). */
  isSafeToRepeat(tool: string): boolean {
    return isSafeToRepeat(this.toolMap.get(tool)?.annotations, this.allowlist.has(tool));
  }

  /**
   * Calls `tool`, starting the server on first use. While reconnecting, calls to tools safe to repeat
   * wait (bounded queue, `queueDeadlineMs`); others fail at once. A call cut off by a crash or hang is
   * run again once after recovery if safe to repeat, else fails with a "not replayed" error.
   * Resolves with the raw tools/call result (`isError: true` results included).
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<McpToolResult> {
    const release = this.keepAlive.hold();
    try {
      return await this.callLoop(tool, args, options);
    } finally {
      release();
    }
  }

  private async callLoop(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpToolResult> {
    let replays = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      switch (this.current) {
        case "closed":
          throw fail.closed(this.ctx());
        case "degraded": {
          const retryIn = this.retryInMs();
          if (retryIn > 0) throw fail.degraded(this.ctx(), this.lastError?.error, retryIn);
          await this.awaitStart(this.beginStart(`cool-down of ${formatSeconds(this.config.degradedCooldownMs)} over`), options.signal);
          continue;
        }
        case "stopped":
          await this.awaitStart(this.beginStart("first use"), options.signal);
          continue;
        case "starting":
          await this.awaitStart(this.startPromise!, options.signal);
          continue;
        case "reconnecting":
          if (!this.isSafeToRepeat(tool)) throw fail.notQueued(this.ctx(), tool);
          await this.queue.wait(options.signal);
          continue;
        case "running": {
          const outcome = await attemptCall(this.attemptCtx!, this.conn!, tool, args, options);
          if (!(outcome instanceof Lost)) return outcome;
          if ((this.current as McpServerState) === "closed") throw outcome.error;
          if (!this.isSafeToRepeat(tool)) throw fail.notReplayed(this.ctx(), tool, outcome.error);
          if (replays >= 1) throw fail.lostAgain(this.ctx(), tool, outcome.error);
          replays++;
          this.logger?.info(`replaying ${tool} on ${this.name} after the connection was lost`, { server: this.name });
          continue;
        }
      }
    }
  }

  /**
   * Stops the current child (if any) and starts a fresh one now, whatever the state (except closed).
   * Resets the reconnect attempts. Rejects with the start error when the new child does not start.
   */
  async restart(): Promise<void> {
    if (this.current === "closed") throw fail.closed(this.ctx());
    const release = this.keepAlive.hold();
    try {
      const old = this.conn;
      if (old) this.drop(old, fail.connectionLost(this.ctx(), "was restarted on request"), false);
      this.attempts = 0;
      await this.beginStart("restart requested", old ? () => old.close(this.config.closeGraceMs) : undefined);
    } finally {
      release();
    }
  }

  /**
   * Shuts down for good: pending and in-flight calls fail with a "shut down" error, the child gets
   * SIGTERM (and stdin EOF), then SIGKILL after `closeGraceMs`. Idempotent; resolves when the child is gone.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Held until the child is gone, then dropped for good: a closed server holds nothing.
      const release = this.keepAlive.hold();
      this.epoch++;
      this.wake?.abort();
      this.startAbort?.abort(fail.closed(this.ctx()));
      const conn = this.conn;
      this.setState("closed", "close requested");
      this.queue.fail(fail.closed(this.ctx()));
      if (conn) this.drop(conn, fail.closed(this.ctx()), false);
      try {
        await Promise.all([conn?.close(this.config.closeGraceMs), this.startPromise?.catch(() => {})]);
      } finally {
        release();
        this.keepAlive.dispose();
      }
      this.listeners.clear();
    })();
    return this.closing;
  }

  /** The recovery notice (what a reconnect lost), once: later calls return undefined until the next recovery. */
  takeNotice(): string | undefined {
    const n = this.notice;
    this.notice = undefined;
    return n;
  }

  /** A snapshot for status tools and commands. */
  status(): ManagedServerStatus {
    const now = this.clock.now();
    const last = this.lastError;
    const retryIn = this.current === "degraded" ? this.retryInMs() : undefined;
    return {
      name: this.name,
      state: this.current,
      stateForMs: now - this.stateSince,
      ...(this.current === "running" && this.runningSince !== undefined ? { uptimeMs: now - this.runningSince } : {}),
      ...(this.conn?.pid !== undefined ? { pid: this.conn.pid } : {}),
      ...(this.snapshot?.serverVersion ? { serverVersion: this.snapshot.serverVersion } : {}),
      toolCount: this.toolMap.size,
      inFlight: this.inFlight.size,
      queued: this.queue.size,
      reconnectAttempts: this.attempts,
      maxReconnectAttempts: this.config.maxReconnectAttempts,
      reconnects: [...this.history],
      ...(last
        ? {
            lastError: {
              message: last.error.message,
              code: last.error.code,
              at: last.at,
              ...(last.error.stderrTail ? { stderrTail: last.error.stderrTail } : {}),
            },
          }
        : {}),
      ...(retryIn !== undefined ? { retryInMs: retryIn } : {}),
    };
  }

  // ---- internals -------------------------------------------------------------------------------

  /**
   * Waits for a start. A start superseded by a newer one (restart, close) does not fail the waiter:
   * the loop looks at the new state instead. The caller's abort ends the wait (the start goes on).
   */
  private async awaitStart(start: Promise<void>, signal?: AbortSignal): Promise<void> {
    let onAbort: (() => void) | undefined;
    try {
      if (!signal) return await start;
      signal.throwIfAborted();
      await Promise.race([start, new Promise<never>((_, reject) => signal.addEventListener("abort", (onAbort = () => reject(signal.reason)), { once: true }))]);
    } catch (error) {
      if (signal?.aborted || start === this.startPromise || this.current === "closed") throw error;
    } finally {
      if (onAbort) signal!.removeEventListener("abort", onAbort);
    }
  }

  private attemptContext(heartbeat: Heartbeat | undefined): AttemptContext {
    return {
      server: this.name,
      clock: this.clock,
      callTimeoutMs: this.config.callTimeoutMs,
      inFlight: this.inFlight,
      signals: this.signals,
      heartbeat,
      isCurrent: (conn) => conn === this.conn,
      onExit: (conn, info) => this.onExit(conn, info),
    };
  }

  private ctx(): fail.MessageContext {
    return { server: this.name, restartCommand: this.config.restartCommand, attempts: this.attempts, maxAttempts: this.config.maxReconnectAttempts };
  }

  private retryInMs(): number {
    return Math.max(0, this.degradedAt + this.config.degradedCooldownMs - this.clock.now());
  }

  private emit(event: ManagedServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger?.warn(`a listener of MCP server ${this.name} threw`, { error: String(error) });
      }
    }
  }

  private setState(to: McpServerState, reason: string): void {
    const from = this.current;
    if (from === to) return;
    this.current = to;
    this.stateSince = this.clock.now();
    this.runningSince = to === "running" ? this.stateSince : undefined;
    this.logger?.[to === "degraded" ? "warn" : "debug"](`MCP server ${this.name}: ${from} -> ${to} (${reason})`, { server: this.name, from, to });
    this.emit({ type: "state", server: this.name, from, to, reason });
  }

  private recordError(error: GovernorError): void {
    this.lastError = { error, at: Date.now() };
  }

  private pushHistory(record: ReconnectRecord): void {
    this.history.push(record);
    if (this.history.length > HISTORY) this.history.shift();
  }

  /** Starts a single attempt (first use, after cool-down, restart). Failure degrades at once: no retry loop. */
  private beginStart(reason: string, before?: () => Promise<void>): Promise<void> {
    const epoch = ++this.epoch;
    this.wake?.abort();
    // A start still in progress is superseded: stop its child now rather than at its connect timeout.
    this.startAbort?.abort(new Error("start superseded"));
    this.attempts = 0;
    this.setState("starting", reason);
    const promise = (async () => {
      try {
        await before?.();
        await this.connectOnce(epoch);
      } catch (raw) {
        const error = classifyError(raw, { subject: `MCP server "${this.name}"` });
        if (epoch === this.epoch) {
          this.recordError(error);
          this.degrade(error);
        }
        throw error;
      }
      if (epoch !== this.epoch) return;
      if (this.lostSinceBefore.length)
        this.notice = `Note: MCP server "${this.name}" was started again (${reason}). Lost since before: ${this.lostSinceBefore.join("; ")}.`;
      this.setState("running", reason);
      this.queue.release();
    })();
    promise.catch(() => {});
    this.startPromise = promise;
    return promise;
  }

  /** Spawns, initializes, lists tools and probes; adopts the connection. */
  private async connectOnce(epoch: number): Promise<void> {
    const abort = new AbortController();
    this.startAbort = abort;
    try {
      const { conn, tools, extra } = await startServer(this.config, {
        connector: this.connector,
        clock: this.clock,
        logger: this.logger,
        signal: abort.signal,
        assertWanted: () => {
          if (epoch !== this.epoch) throw fail.closed(this.ctx());
        },
        onTransportError: (error) => {
          this.logger?.debug(`MCP server ${this.name}: transport error: ${error.message}`, { server: this.name });
          this.emit({ type: "transport_error", server: this.name, message: error.message });
        },
      });
      this.adopt(conn, tools, extra);
    } finally {
      if (this.startAbort === abort) this.startAbort = undefined;
    }
  }

  private adopt(conn: ServerConnection, tools: McpTool[], extra: Record<string, unknown>): void {
    this.conn = conn;
    this.toolMap = new Map(tools.map((t) => [t.name, t]));
    const next = snapshotOf(conn.serverVersion, tools, extra);
    this.lostSinceBefore = this.snapshot ? diffSnapshots(this.snapshot, next) : [];
    this.snapshot = next;
    const hb = new Heartbeat(
      this.clock,
      this.config.heartbeatIntervalMs,
      () => conn.ping(this.config.heartbeatTimeoutMs),
      (error) => isErrorCategory(classifyError(error), "timeout"),
      () => {
        if (conn !== this.conn) return;
        conn.kill();
        const why = `stopped answering (no reply to a ping within ${formatSeconds(this.config.heartbeatTimeoutMs)})`;
        this.drop(conn, fail.connectionLost(this.ctx(), `${why}; it was killed and is being restarted`, conn.stderrTail()), why);
      },
    );
    this.heartbeat = hb;
    this.attemptCtx = this.attemptContext(hb);
    void conn.exited.then((info) => this.onExit(conn, info));
  }

  private onExit(conn: ServerConnection, info: ExitInfo): void {
    if (conn !== this.conn) return;
    const what = `${fail.describeExit(info)} unexpectedly`;
    this.drop(conn, fail.connectionLost(this.ctx(), `${what}; it is being restarted`, conn.stderrTail()), what);
  }

  /** Forgets `conn`, cuts off its in-flight calls with `error`, and reconnects when given a reason. */
  private drop(conn: ServerConnection, error: GovernorError, reconnectReason: string | false): void {
    if (conn !== this.conn) return;
    this.conn = undefined;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    if (this.current !== "closed") this.recordError(error);
    for (const entry of [...this.inFlight]) entry.lose(error);
    if (reconnectReason && this.current === "running") void this.reconnect(reconnectReason);
  }

  /** The backoff loop after a crash or hang. Spent attempts degrade the server. */
  private async reconnect(reason: string): Promise<void> {
    const epoch = ++this.epoch;
    const lostAt = this.clock.now();
    const at = Date.now();
    const wake = new AbortController();
    this.wake = wake;
    this.attempts = 0;
    this.setState("reconnecting", reason);
    for (let attempt = 1; attempt <= this.config.maxReconnectAttempts; attempt++) {
      this.attempts = attempt;
      try {
        await sleep(this.clock, scheduledBackoffMs(attempt, this.config.backoffMs), wake.signal);
      } catch {
        return; // restart or close took over
      }
      if (epoch !== this.epoch) return;
      try {
        await this.connectOnce(epoch);
      } catch (raw) {
        if (epoch !== this.epoch) return;
        const error = classifyError(raw, { subject: `MCP server "${this.name}"` });
        this.recordError(error);
        this.logger?.warn(`MCP server ${this.name}: reconnect attempt ${attempt}/${this.config.maxReconnectAttempts} failed: ${error.message}`, {
          server: this.name,
        });
        continue;
      }
      if (epoch !== this.epoch) return;
      const durationMs = this.clock.now() - lostAt;
      this.pushHistory({ at, reason, attempts: attempt, ok: true, durationMs });
      const lost = this.lostSinceBefore;
      this.notice = `Note: MCP server "${this.name}" ${reason} and was restarted (attempt ${attempt}, ${Math.round(durationMs)} ms). ${lost.length ? `Lost in the restart: ${lost.join("; ")}.` : "No server state was lost."}`;
      this.setState("running", `reconnected after ${attempt} attempt(s)`);
      this.emit({ type: "recovered", server: this.name, attempts: attempt, durationMs, lost, notice: this.notice });
      this.queue.release();
      return;
    }
    this.pushHistory({ at, reason, attempts: this.attempts, ok: false, durationMs: this.clock.now() - lostAt });
    this.degrade(this.lastError?.error);
  }

  private degrade(error: GovernorError | undefined): void {
    this.degradedAt = this.clock.now();
    this.setState("degraded", error?.message ?? "reconnect attempts spent");
    const failure = fail.degraded(this.ctx(), error, this.config.degradedCooldownMs);
    this.emit({ type: "degraded", server: this.name, attempts: this.attempts, error: failure });
    this.queue.fail(failure);
  }
}

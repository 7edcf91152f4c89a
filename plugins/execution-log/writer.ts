/**
 * Batched, failure-tolerant writer of execution rows. A governed call only pushes a small record
 * into a buffer (no I/O, no serialisation); sizes are measured and rows inserted later, in one
 * transaction per batch, from an unref'd timer, when the batch is full, or at session shutdown.
 *
 * SQLite waits for another connection's lock synchronously, so the writer never waits long: with a
 * 5 ms busy timeout a locked database fails fast, the rows STAY in the buffer (bounded by
 * maxBufferedRows, oldest dropped and counted), and the batch is retried from a timer with backoff
 * (50 ms doubling to 2 s). One warning when the wait starts, one line when it ends, with counts
 * (dropped rows included). A buffer that fills while the database is writable (a burst of thousands
 * of calls in one tick) is written at once instead: nothing is dropped then.
 * Only a failure that waiting cannot heal (no driver, unwritable path, not a database, a dropped
 * table) disables the log: one warning with the fix, after which rows are discarded.
 */
import type { Clock, ContentBlock, Logger } from "../../core/index.ts";
import { contentBytes, utf8Bytes } from "../../lib/size/index.ts";
import {
  isTransientSqliteError,
  sqliteErrorCode,
  sqliteFailureAdvice,
  type SqliteDatabase,
  type SqliteStatement,
  type SqlValue,
} from "../../lib/sqlite/index.ts";
import type { TextRedactor } from "../../lib/redact/index.ts";
import { columnText, MAX_CATEGORY_CHARS } from "./columns.ts";
import { openLogForWriting } from "./open-db.ts";
import { type ExecutionRow, INSERT_SQL } from "./schema.ts";

/** What a call leaves in the buffer; sizes are computed at flush time, off the call path. */
export interface PendingExecution {
  taskId: string;
  /** The call that made this one (a codemode script's call), when another tool made it. */
  parentTaskId?: string;
  toolName: string;
  status: string;
  durationMs: number;
  /** Wall-clock epoch milliseconds at the start of the call. */
  startedAtMs: number;
  sessionId: string;
  errorCategory: string | undefined;
  retries: number;
  args: unknown;
  content: readonly ContentBlock[];
}

/** Writer settings. */
export interface ExecutionLogWriterOptions {
  path: string;
  phase: string;
  batchSize: number;
  flushIntervalMs: number;
  maxBufferedRows: number;
  /** First retry delay after a busy database, in ms; doubles per failed attempt. Default 50. */
  retryInitialMs?: number;
  /** Longest retry delay, in ms. Default 2000. */
  retryMaxMs?: number;
  /** Longest time close() keeps retrying a busy database before reporting the rows it could not write, in ms. Default 2000. */
  closeTimeoutMs?: number;
  /** Hides secrets in the text columns before they are bounded and written: the session's redactor. Default: the built-in rules (lib/redact's redactorForWrites). */
  redactor?: TextRedactor;
}

/** Writer collaborators. */
export interface ExecutionLogWriterDeps {
  clock: Clock;
  logger: Logger;
  /** Shows a message to the user (services.ui().notify): the lock warning, its recovery, the disable warning. */
  notify: (message: string, level: "warning" | "info") => void;
  /** Opens the database; default {@link openLogForWriting}. Injected by tests to simulate failures. */
  open?: (path: string) => SqliteDatabase;
}

/** Most rows one transaction writes: keeps one flush to a few ms even with a large backlog. */
const MAX_ROWS_PER_TRANSACTION = 500;

/** Buffers execution rows and writes them in batches. */
export class ExecutionLogWriter {
  private buffer: PendingExecution[] = [];
  private db: SqliteDatabase | undefined;
  private insert: SqliteStatement | undefined;
  private timer: unknown = undefined;
  private disabled = false;
  /** Rows dropped because the buffer was full, not yet reported. */
  private dropped = 0;
  /** Set while the database is busy: when the wait started and how many attempts failed. */
  private waiting: { since: number; attempts: number } | undefined;
  /** Rows written since the writer was created (tests, status). */
  written = 0;
  /** Rows lost for good: dropped from a full buffer, or unwritten when close() gave up. */
  lost = 0;

  constructor(
    private readonly options: ExecutionLogWriterOptions,
    private readonly deps: ExecutionLogWriterDeps,
  ) {}

  /** True once the log gave up (a failure that waiting cannot heal). */
  get degraded(): boolean {
    return this.disabled;
  }

  /** True while the database is locked by another connection and rows wait for it. */
  get busy(): boolean {
    return this.waiting !== undefined;
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Queues one row. Never throws. No I/O, but when the buffer is full and the database is not known
   * to be locked: then the buffer is written at once (one transaction) rather than a row dropped.
   * Rows are dropped (oldest first, counted, and said to the user) only while the database is locked.
   */
  add(row: PendingExecution): void {
    if (this.disabled) return;
    if (this.buffer.length >= this.options.maxBufferedRows && !this.waiting) this.flush();
    if (this.disabled) return;
    if (this.buffer.length >= this.options.maxBufferedRows) {
      this.buffer.shift();
      this.dropped++;
      this.lost++;
    }
    this.buffer.push(row);
    if (this.waiting) return; // the retry timer is already set
    if (this.buffer.length >= this.options.batchSize) this.schedule(0);
    else if (this.timer === undefined) this.schedule(this.options.flushIntervalMs);
  }

  /**
   * Writes up to {@link MAX_ROWS_PER_TRANSACTION} buffered rows now, in one transaction, and
   * schedules the rest. Never throws, never waits on a lock for more than a few ms.
   * Returns "done" (buffer empty), "more" (rows remain), "busy" (retry later) or "disabled".
   */
  flush(): "done" | "more" | "busy" | "disabled" {
    this.clearTimer();
    if (this.disabled) return "disabled";
    if (this.buffer.length === 0) return "done";
    const batch = this.buffer.slice(0, MAX_ROWS_PER_TRANSACTION);
    try {
      if (!this.db) {
        const db = (this.deps.open ?? openLogForWriting)(this.options.path);
        try {
          this.insert = db.prepare(INSERT_SQL);
        } catch (error) {
          db.close();
          throw error;
        }
        this.db = db;
      }
      const insert = this.insert!;
      // Rows (and their byte sizes) are built only once BEGIN IMMEDIATE holds the lock, so a retry
      // against a busy database costs a failed BEGIN, not a serialisation of the whole backlog.
      this.db.transaction(() => {
        for (const r of batch) insert.run(this.toRow(r) as unknown as Record<string, SqlValue>);
      }, "immediate");
    } catch (error) {
      if (isTransientSqliteError(error)) {
        this.waitForLock(error);
        return "busy";
      }
      this.degrade(error);
      return "disabled";
    }
    // Rows are removed only once committed; add() may have shifted some out meanwhile (never during a sync flush).
    this.buffer.splice(0, batch.length);
    this.written += batch.length;
    if (this.waiting) this.recovered(batch.length);
    else if (this.dropped > 0) this.reportDropped();
    if (this.buffer.length > 0) {
      // A backlog (after a lock) goes out one full transaction per timer turn, so calls run in between.
      if (batch.length === MAX_ROWS_PER_TRANSACTION || this.buffer.length >= this.options.batchSize) this.schedule(0);
      else this.schedule(this.options.flushIntervalMs);
      return "more";
    }
    return "done";
  }

  /**
   * Flushes what it can and closes the database (session shutdown). A busy database is retried with
   * the usual backoff for at most closeTimeoutMs; rows still unwritten then are reported (logger and
   * UI) and discarded. A later row reopens the database. Never throws.
   */
  async close(): Promise<void> {
    const deadline = this.deps.clock.now() + (this.options.closeTimeoutMs ?? 2_000);
    for (;;) {
      const result = this.flush();
      if (result === "done" || result === "disabled") break;
      if (result === "more") continue;
      const delay = this.retryDelay();
      if (this.deps.clock.now() + delay > deadline) break;
      this.clearTimer();
      await new Promise<void>((resolve) => this.deps.clock.setTimeout(resolve, delay));
    }
    this.clearTimer();
    if (this.buffer.length > 0 && !this.disabled) {
      const unwritten = this.buffer.length;
      this.lost += unwritten;
      this.buffer = [];
      const message = `pi-governor: ${unwritten} execution-log rows could not be written to ${this.options.path} before shutdown: the database stayed locked by another process (${this.waitingFor()}); they are lost. Find the process holding it (fuser ${this.options.path}) if this repeats.`;
      this.warn(message, "warning");
    }
    this.waiting = undefined;
    this.dropped = 0;
    try {
      this.db?.close();
    } catch {
      // Closing a database that failed is not worth a second warning.
    }
    this.db = undefined;
    this.insert = undefined;
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) {
      if (ms > 0) return;
      this.clearTimer();
    }
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, ms);
  }

  private retryDelay(): number {
    const attempts = this.waiting?.attempts ?? 1;
    return Math.min(this.options.retryMaxMs ?? 2_000, (this.options.retryInitialMs ?? 50) * 2 ** (attempts - 1));
  }

  private waitingFor(): string {
    return this.waiting ? `${Math.round((this.deps.clock.now() - this.waiting.since) / 100) / 10}s` : "0s";
  }

  /** A busy database: keep the rows, warn once when the wait starts, retry with backoff. */
  private waitForLock(error: unknown): void {
    if (!this.waiting) {
      this.waiting = { since: this.deps.clock.now(), attempts: 0 };
      this.warn(
        `pi-governor: the execution log at ${this.options.path} is locked by another process (${sqliteErrorCode(error)}); ${this.buffer.length} rows are kept in memory (up to executionLog.maxBufferedRows = ${this.options.maxBufferedRows}) and written when the lock clears. Tool calls are not affected.`,
        "warning",
      );
    }
    this.waiting.attempts++;
    this.schedule(this.retryDelay());
  }

  /** The lock cleared: one line with what waited, what was written and what was dropped. */
  private recovered(firstBatch: number): void {
    const dropped = this.dropped;
    const backlog = firstBatch + this.buffer.length;
    this.warn(
      `pi-governor: the execution log at ${this.options.path} is writable again after ${this.waitingFor()}: wrote ${backlog} rows that waited${dropped > 0 ? `; ${dropped} older rows were dropped because the buffer was full (raise executionLog.maxBufferedRows to keep more)` : ", none lost"}.`,
      "info",
    );
    this.waiting = undefined;
    this.dropped = 0;
  }

  /** Rows were dropped outside a lock wait (a flush that found the database busy and then not): said to the user, not only logged. */
  private reportDropped(): void {
    this.warn(
      `pi-governor: the execution log at ${this.options.path} dropped ${this.dropped} rows while its buffer was full (executionLog.maxBufferedRows = ${this.options.maxBufferedRows}); raise it to keep more.`,
      "warning",
    );
    this.dropped = 0;
  }

  private warn(message: string, level: "warning" | "info"): void {
    if (level === "warning") this.deps.logger.warn(message, { path: this.options.path });
    else this.deps.logger.info(message, { path: this.options.path });
    try {
      this.deps.notify(message, level);
    } catch {
      // A UI that cannot show the message must not turn the log into a failure.
    }
  }

  /** The row as written: every text column bounded and redacted here, whatever the caller passed (see columns.ts). */
  private toRow(r: PendingExecution): ExecutionRow {
    const text = (value: string | undefined, max?: number) => (value ? columnText(value, max, this.options.redactor) : null);
    return {
      task_id: text(r.taskId),
      parent_task_id: text(r.parentTaskId),
      tool_name: text(r.toolName) ?? "",
      phase: text(this.options.phase),
      status: text(r.status) ?? "",
      duration_ms: Math.round(r.durationMs),
      started_at: new Date(r.startedAtMs).toISOString(),
      completed_at: new Date(r.startedAtMs + r.durationMs).toISOString(),
      session_id: text(r.sessionId),
      error_category: text(r.errorCategory, MAX_CATEGORY_CHARS),
      retries: r.retries,
      bytes_in: jsonBytes(r.args),
      bytes_out: contentBytes(r.content),
    };
  }

  /** Gives up for good: one warning in the log and one in the UI, with the fix; then rows are discarded. */
  private degrade(error: unknown): void {
    this.disabled = true;
    this.lost += this.buffer.length;
    this.buffer = [];
    this.waiting = undefined;
    try {
      this.db?.close();
    } catch {
      // Already failing; the warning below says what matters.
    }
    this.db = undefined;
    this.insert = undefined;
    this.warn(
      `pi-governor: the execution log at ${this.options.path} is unavailable: ${sqliteFailureAdvice(error, { path: this.options.path, configKey: "executionLog.dbPath", rebuilt: "a new log is created at the next start" })}. Tool calls go on without it.`,
      "warning",
    );
  }
}

function jsonBytes(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : utf8Bytes(text);
  } catch {
    return null;
  }
}

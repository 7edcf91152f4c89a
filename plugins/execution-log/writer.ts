/**
 * Batched, failure-tolerant writer of execution rows. A governed call only pushes a small record
 * into a buffer (no I/O, no serialisation); sizes are measured and rows inserted later, in one
 * transaction per batch, from an unref'd timer, when the batch is full, or at session shutdown.
 *
 * A database that cannot be opened or written degrades the log to ONE warning (logger and UI),
 * after which rows are dropped: the execution log must never fail or slow a tool call.
 */
import type BetterSqlite3 from "better-sqlite3";
import { contentBytes, errorText, type Clock, type ContentBlock, type Logger } from "../../core/index.ts";
import { openLogForWriting } from "./open-db.ts";
import { type ExecutionRow, INSERT_SQL } from "./schema.ts";

/** What a call leaves in the buffer; sizes are computed at flush time, off the call path. */
export interface PendingExecution {
  taskId: string;
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
}

/** Writer collaborators. */
export interface ExecutionLogWriterDeps {
  clock: Clock;
  logger: Logger;
  /** Shows the one-time warning to the user (services.ui().notify). */
  notify: (message: string) => void;
  /** Opens the database; default {@link openLogForWriting}. Injected by tests to simulate failures. */
  open?: (path: string) => BetterSqlite3.Database;
}

/** Buffers execution rows and writes them in batches. */
export class ExecutionLogWriter {
  private buffer: PendingExecution[] = [];
  private db: BetterSqlite3.Database | undefined;
  private insert: BetterSqlite3.Statement<ExecutionRow> | undefined;
  private timer: unknown = undefined;
  private disabled = false;
  private dropped = 0;
  /** Rows written since the writer was created (tests, status). */
  written = 0;

  constructor(
    private readonly options: ExecutionLogWriterOptions,
    private readonly deps: ExecutionLogWriterDeps,
  ) {}

  /** True once the log gave up (could not open or write). */
  get degraded(): boolean {
    return this.disabled;
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Queues one row. Never throws, never does I/O. */
  add(row: PendingExecution): void {
    if (this.disabled) return;
    if (this.buffer.length >= this.options.maxBufferedRows) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push(row);
    if (this.buffer.length >= this.options.batchSize) this.schedule(0);
    else if (this.timer === undefined) this.schedule(this.options.flushIntervalMs);
  }

  /** Writes everything buffered now. Never throws. */
  flush(): void {
    if (this.timer !== undefined) {
      this.deps.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.disabled || this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      if (!this.db) {
        this.db = (this.deps.open ?? openLogForWriting)(this.options.path);
        this.insert = this.db.prepare<ExecutionRow>(INSERT_SQL);
      }
      const insert = this.insert!;
      this.db.transaction((batch: PendingExecution[]) => {
        for (const r of batch) insert.run(this.toRow(r));
      })(rows);
      this.written += rows.length;
      if (this.dropped > 0) {
        this.deps.logger.warn(`execution log dropped ${this.dropped} rows while the buffer was full`, { dropped: this.dropped });
        this.dropped = 0;
      }
    } catch (error) {
      this.degrade(error);
    }
  }

  /** Flushes and closes the database (session shutdown). A later row reopens it. Never throws. */
  close(): void {
    this.flush();
    try {
      this.db?.close();
    } catch {
      // Closing a database that failed is not worth a second warning.
    }
    this.db = undefined;
    this.insert = undefined;
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) {
      if (ms > 0) return;
      this.deps.clock.clearTimeout(this.timer);
    }
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, ms);
  }

  private toRow(r: PendingExecution): ExecutionRow {
    return {
      task_id: r.taskId || null,
      tool_name: r.toolName,
      phase: this.options.phase || null,
      status: r.status,
      duration_ms: Math.round(r.durationMs),
      started_at: new Date(r.startedAtMs).toISOString(),
      completed_at: new Date(r.startedAtMs + r.durationMs).toISOString(),
      session_id: r.sessionId || null,
      error_category: r.errorCategory ?? null,
      retries: r.retries,
      bytes_in: jsonBytes(r.args),
      bytes_out: contentBytes(r.content),
    };
  }

  /** Gives up for good: one warning in the log and one in the UI, then rows are dropped. */
  private degrade(error: unknown): void {
    this.disabled = true;
    this.buffer = [];
    try {
      this.db?.close();
    } catch {
      // Already failing; the warning below says what matters.
    }
    this.db = undefined;
    const message = `pi-governor: the execution log at ${this.options.path} is unavailable (${errorText(error)}); tool calls go on without it. Check the path and permissions, or set executionLog.dbPath.`;
    this.deps.logger.warn(message, { path: this.options.path });
    try {
      this.deps.notify(message);
    } catch {
      // A UI that cannot show the warning must not turn a degraded log into a failure.
    }
  }
}

function jsonBytes(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
  } catch {
    return null;
  }
}

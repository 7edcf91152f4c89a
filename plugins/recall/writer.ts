/**
 * The recall writer: tool outputs are queued on the result path and written later, in batches, from
 * an unref'd timer, so indexing never delays or fails a tool call.
 *
 * Per batch: outputs that were not cut to a blob are stored in the blob cache first (their id was
 * computed on the result path from the same bytes), outputs that were cut are read back from their
 * blob (the full text, up to maxIndexBytes), then all rows go into the index in one transaction.
 * An output whose blob could not be written is never indexed: no row points at missing content.
 *
 * Degrading: a locked index keeps its rows and retries on the next tick; an index that cannot be
 * opened or written gives ONE warning and indexing stops for this process (blobs are still stored,
 * so every placeholder keeps its way back); a blob cache that cannot be written gives one warning too.
 *
 * Shutdown: close() keeps flushing for at most `closeWaitMs` while another process holds the lock;
 * rows still queued then go to a private spill file beside the index (spill.ts), which the next
 * writer replays before its own rows. When even that fails, one warning says how many were lost.
 */
import { setTimeout as delay } from "node:timers/promises";
import { errorText } from "../../core/errors.ts";
import type { Clock, Logger } from "../../core/index.ts";
import type { BlobStore, TextRedactor } from "../../lib/blobs/index.ts";
import { columnText } from "../../lib/redact/index.ts";
import { isTransientSqliteError, sqliteFailureAdvice } from "../../lib/sqlite/index.ts";
import type { ChunkLimits } from "./chunk.ts";
import { checkIndexFiles } from "./index-file.ts";
import { OUTPUT_COLUMN_CHARS, RecallIndex, type OutputRecord, type PendingOutput } from "./index-store.ts";
import { takeSpills, writeSpill } from "./spill.ts";

/** Between flush attempts while close() waits for another process's lock, in milliseconds. */
const CLOSE_RETRY_MS = 50;

export type { PendingOutput } from "./index-store.ts";

/** Writer settings (see config.ts for meaning and bounds). */
export interface RecallWriterOptions {
  path: string;
  chunk: Partial<ChunkLimits>;
  batchSize: number;
  flushIntervalMs: number;
  maxQueued: number;
  maxIndexBytes: number;
  maxOutputs: number;
  /** How long close() keeps retrying a locked index before spilling the queue, in ms. Default 1000. */
  closeWaitMs?: number;
}

/** What the writer reports through. */
export interface RecallWriterDeps {
  clock: Clock;
  logger: Logger;
  notify(message: string, level: "info" | "warning" | "error"): void;
  store: BlobStore;
  /** Hides secrets in what the index and the spill file keep (the session's redactor). Default: the built-in rules. */
  redactor?: TextRedactor;
  /** Opens the index after its files were checked; default RecallIndex.open (tests inject failures). */
  open?: (path: string) => RecallIndex;
}

/** Queues tool outputs on the result path and writes them to the blob cache and the index in batches; see the module comment. */
export class RecallWriter {
  private queue: PendingOutput[] = [];
  private timer: unknown;
  private flushing: Promise<void> | undefined;
  private opened: RecallIndex | undefined;
  /** Why the index is off for this process, once it failed for good. */
  private brokenReason: string | undefined;
  private blobWarned = false;
  private dropWarned = false;
  private replayed = false;
  /** Outputs written to the index by this writer. */
  indexed = 0;

  constructor(
    readonly options: RecallWriterOptions,
    private readonly deps: RecallWriterDeps,
  ) {}

  /** Why indexing is off, or undefined while it works. */
  get broken(): string | undefined {
    return this.brokenReason;
  }

  /**
   * Turns indexing off from the start, without a warning (the plugin said why at load); outputs are
   * still stored in the blob cache.
   */
  off(reason: string): void {
    this.brokenReason ??= reason;
  }

  /** Queues one output; never throws. */
  add(output: PendingOutput): void {
    if (this.queue.length >= this.options.maxQueued) {
      // Drop the oldest output whose blob is already stored (only its index row is lost). One that
      // still carries its text is never dropped: its result already names the blob.
      const victim = this.queue.findIndex((p) => p.text === undefined);
      if (victim < 0) {
        this.queue.push(output);
        this.schedule(0);
        return;
      }
      this.queue.splice(victim, 1);
      if (!this.dropWarned) {
        this.dropWarned = true;
        this.deps.logger.warn("recall queue full; oldest outputs not indexed", { maxQueued: this.options.maxQueued });
      }
    }
    this.queue.push(output);
    this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
  }

  /** Outputs waiting. */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued now (searches call it first, so the newest outputs are found). */
  flush(): Promise<void> {
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing ??= this.drain().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /**
   * The open index for reading, opening it if needed (its folder and files checked first, see
   * index-file.ts); undefined (with the one warning) when it cannot be opened.
   */
  async index(): Promise<RecallIndex | undefined> {
    if (this.brokenReason) return undefined;
    if (this.opened?.db.isOpen) return this.opened;
    try {
      await checkIndexFiles(this.options.path, { create: true });
      const redactor = this.deps.redactor ?? this.deps.store;
      this.opened = (this.deps.open ?? ((p) => RecallIndex.open(p, { chunk: this.options.chunk, redactor })))(this.options.path);
      return this.opened;
    } catch (error) {
      if (isTransientSqliteError(error)) return undefined;
      this.fail(error);
      return undefined;
    }
  }

  /**
   * Flushes and closes the index. While another process holds its lock, flushing is retried for at
   * most `closeWaitMs`; rows still queued then are spilled (and replayed by the next writer), or,
   * when that fails too, one warning names how many outputs were not indexed. Returns how many rows
   * were spilled.
   */
  async close(): Promise<number> {
    const waitMs = this.options.closeWaitMs ?? 1_000;
    const start = this.deps.clock.now();
    await this.flush();
    while (this.queue.length && !this.brokenReason && this.deps.clock.now() - start < waitMs) {
      // A referenced timer (the clock's are unref'd): pi exits once the loop is idle, and this bounded
      // wait is exactly what must keep it alive.
      await delay(Math.min(CLOSE_RETRY_MS, waitMs));
      await this.flush();
    }
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const spilled = this.queue.length && !this.brokenReason ? await this.spill() : 0;
    this.opened?.close();
    this.opened = undefined;
    return spilled;
  }

  /** Writes the queue to a spill file (blobs first, so every spilled row has its content). */
  private async spill(): Promise<number> {
    const queued = this.queue.splice(0);
    const rows: PendingOutput[] = [];
    for (const { text, ...row } of queued) if ((await this.contentOf({ ...row, ...(text !== undefined ? { text } : {}) })) !== undefined) rows.push(row);
    if (!rows.length) return 0;
    // The spill file is bytes on disk too: the texts it keeps (tool name, argument summary, call id) are redacted.
    const redactor = this.deps.redactor ?? this.deps.store;
    for (const row of rows)
      Object.assign(row, {
        tool: columnText(row.tool, OUTPUT_COLUMN_CHARS.tool, redactor),
        args: columnText(row.args, OUTPUT_COLUMN_CHARS.args, redactor),
        toolCallId: columnText(row.toolCallId, OUTPUT_COLUMN_CHARS.tool_call_id, redactor),
      });
    try {
      await checkIndexFiles(this.options.path, { create: true });
      const file = await writeSpill(this.options.path, rows);
      this.deps.logger.info("recall: index busy at shutdown; rows kept for the next session", { rows: rows.length, file });
      return rows.length;
    } catch (error) {
      this.deps.logger.warn("recall: rows not indexed at shutdown", { rows: rows.length, error: errorText(error) });
      this.deps.notify(
        `pi-governor recall: ${rows.length} tool output(s) of this session were not indexed: the index ${this.options.path} stayed locked by another process and the rows could not be kept (${errorText(error)}). Their blobs are stored; blob_read still reads them.`,
        "warning",
      );
      return 0;
    }
  }

  /** Queues the rows earlier sessions spilled (once per writer), before this session's rows. */
  private async replaySpills(): Promise<void> {
    if (this.replayed) return;
    this.replayed = true;
    try {
      const { rows, files, skipped } = await takeSpills(this.options.path, this.options.maxQueued);
      if (!files) return;
      this.queue.unshift(...rows);
      this.deps.logger.info("recall: replaying rows kept at an earlier shutdown", { rows: rows.length, files, skipped });
    } catch (error) {
      this.deps.logger.warn("recall: spilled rows not replayed", { error: errorText(error) });
    }
  }

  /** Replays what earlier sessions spilled, soon (called at session start). */
  start(): void {
    if (!this.replayed) this.schedule(this.options.flushIntervalMs);
  }

  private schedule(ms: number): void {
    if (this.flushing) return;
    if (this.timer !== undefined) {
      if (ms > 0) return;
      this.deps.clock.clearTimeout(this.timer); // a full batch goes now, not at the interval
    }
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
  }

  private async drain(): Promise<void> {
    // Spilled rows first (blobs of queued outputs are written before the index is opened, so a broken
    // index never costs a way back).
    if (!this.replayed && !this.queue.length && (await this.index())) await this.replaySpills();
    while (this.queue.length) {
      const batch = this.queue.splice(0, Math.max(this.options.batchSize, 1));
      const records: OutputRecord[] = [];
      for (const p of batch) {
        const text = await this.contentOf(p);
        if (text !== undefined) records.push({ ...p, text });
      }
      if (this.brokenReason || !records.length) continue;
      const index = await this.index();
      if (!index) {
        if (this.brokenReason) return;
        this.requeue(batch, records); // locked while opening: try again later
        return;
      }
      if (!this.replayed) {
        await this.replaySpills();
        this.requeue(batch, records, 0);
        continue;
      }
      try {
        index.addAll(records);
        this.indexed += records.length;
      } catch (error) {
        if (isTransientSqliteError(error)) {
          this.requeue(batch, records);
          return;
        }
        this.fail(error);
        return;
      }
    }
    // Keep the index bounded; cheap (one indexed lookup) when under the bound.
    try {
      this.opened?.keepNewest(this.options.maxOutputs);
    } catch (error) {
      if (!isTransientSqliteError(error)) this.deps.logger.warn("recall index bound not applied", { error: errorText(error) });
    }
  }

  /** Puts the batch's outputs back (blob already stored: as text to read from the blob) and retries later. */
  private requeue(batch: PendingOutput[], records: OutputRecord[], retryMs = Math.max(this.options.flushIntervalMs, 100)): void {
    const kept = new Set(records.map((r) => r.toolCallId + r.blobId));
    const rows = batch.filter((p) => kept.has(p.toolCallId + p.blobId)).map(({ text: _text, ...rest }) => rest);
    if (retryMs === 0)
      this.queue.push(...rows); // after the replayed rows, which are older
    else {
      this.queue.unshift(...rows);
      this.schedule(retryMs);
    }
  }

  /** The text to index: stored first when it came inline, else read from its blob. Undefined: skip. */
  private async contentOf(p: PendingOutput): Promise<string | undefined> {
    try {
      if (p.text !== undefined) {
        const written = await this.deps.store.put(p.text);
        if (written.id !== p.blobId) throw new Error(`blob id mismatch (${written.id} stored, ${p.blobId} announced)`);
        return typeof p.text === "string" ? p.text : p.text.text;
      }
      const bytes = await this.deps.store.readBytes(p.blobId, 0, this.options.maxIndexBytes);
      return bytes.toString("utf8");
    } catch (error) {
      this.deps.logger.warn("recall: output not indexed, its blob is not available", { tool: p.tool, blobId: p.blobId, error: errorText(error) });
      if (p.text !== undefined && !this.blobWarned) {
        this.blobWarned = true;
        this.deps.notify(
          `pi-governor recall: cannot write the blob cache ${this.deps.store.dir} (${errorText(error)}). Outputs are not indexed and pruned ones must be re-run; fix the directory or set blobs.dir.`,
          "warning",
        );
      }
      return undefined;
    }
  }

  private fail(error: unknown): void {
    if (this.brokenReason) return;
    this.brokenReason = errorText(error);
    this.queue = [];
    try {
      this.opened?.close();
    } catch {
      // already unusable
    }
    this.opened = undefined;
    this.deps.logger.warn("recall index unavailable", { path: this.options.path, error: this.brokenReason });
    const advice = sqliteFailureAdvice(error, {
      path: this.options.path,
      configKey: "recall.dbPath",
      rebuilt: "a new, empty index is created at the next start (outputs indexed before are no longer found; their blobs stay)",
    });
    this.deps.notify(
      `pi-governor recall: the search index ${this.options.path} cannot be used: ${advice}. Tool outputs are not indexed in this session (everything else works).`,
      "warning",
    );
  }
}

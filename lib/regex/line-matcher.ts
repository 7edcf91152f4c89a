/**
 * Runs an outside pattern over batches of lines without ever blocking the event loop: literal
 * patterns on the calling thread (linear time), every other pattern in a worker thread that is
 * terminated when one batch takes longer than the deadline or the caller's signal aborts.
 * `worker.terminate()` interrupts a RegExp in the middle of its backtracking, which nothing on the
 * main thread can do.
 */
import { Worker } from "node:worker_threads";
import { InvalidInputError } from "../../core/index.ts";
import type { SafePattern } from "./pattern.ts";

/** Default time one batch of lines may take in the worker before the pattern is judged too slow: 2,000 ms. */
export const DEFAULT_BATCH_DEADLINE_MS = 2_000;

/**
 * The worker: compiles the pattern once, answers each batch of lines with the index of the first
 * match per line (-1: none). Plain JavaScript evaluated as a script, so it runs the same under
 * Node, tsx, vitest and pi's jiti loader (a TypeScript worker file would need a loader of its own).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source, workerData.flags);
parentPort.postMessage("ready");
parentPort.on("message", (lines) => {
  const out = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const m = re.exec(lines[i]);
    out[i] = m === null ? -1 : m.index;
  }
  parentPort.postMessage(out, [out.buffer]);
});
`;

/** Finds the first match in each line of a batch. Close it when done (a worker may be running). */
export interface LineMatcher {
  /**
   * Index (UTF-16) of the first match in each line, -1 where none. Rejects with an InvalidInputError
   * when the batch takes longer than the deadline (the pattern backtracks catastrophically), and
   * with the signal's reason when the signal aborts; either way the worker is already terminated.
   */
  match(lines: readonly string[], signal?: AbortSignal): Promise<ArrayLike<number>>;
  /** Releases the worker, if any. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createLineMatcher}. */
export interface LineMatcherOptions {
  /** How long one batch may take in the worker, in milliseconds. Default {@link DEFAULT_BATCH_DEADLINE_MS}. */
  batchDeadlineMs?: number;
}

/** A matcher for `pattern`: in-thread for a literal, in a worker under a deadline for anything else. */
export function createLineMatcher(pattern: SafePattern, options: LineMatcherOptions = {}): LineMatcher {
  if (pattern.literal) return literalMatcher(pattern.regex);
  return new WorkerLineMatcher(pattern, options.batchDeadlineMs ?? DEFAULT_BATCH_DEADLINE_MS);
}

function literalMatcher(regex: RegExp): LineMatcher {
  const re = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ""));
  return {
    async match(lines, signal) {
      signal?.throwIfAborted();
      const out = new Int32Array(lines.length);
      for (let i = 0; i < lines.length; i++) out[i] = re.exec(lines[i]!)?.index ?? -1;
      return out;
    },
    async close() {},
  };
}

/** A pattern that passed its deadline: an InvalidInputError (the model must change the pattern). */
export class PatternTooSlowError extends InvalidInputError {}

/** The message a too-slow pattern gets: what happened and what to do instead. */
export function tooSlowError(source: string, deadlineMs: number, where: string): PatternTooSlowError {
  return new PatternTooSlowError(
    `the pattern ${JSON.stringify(source)} took longer than ${deadlineMs} ms on ${where} and was stopped: it backtracks catastrophically (nested or overlapping repetition such as (a+)+, (a|a)* or (.*x)*)`,
    {
      agentMessage:
        "Use a simpler pattern: a plain literal word, or a regular expression without nested or overlapping repetition (write a+ instead of (a+)+, and avoid several .* in a row).",
    },
  );
}

class WorkerLineMatcher implements LineMatcher {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private failed: Error | undefined;

  constructor(
    private readonly pattern: SafePattern,
    private readonly deadlineMs: number,
  ) {}

  async match(lines: readonly string[], signal?: AbortSignal): Promise<ArrayLike<number>> {
    if (this.failed) throw this.failed;
    signal?.throwIfAborted();
    if (lines.length === 0) return new Int32Array(0);
    // The deadline covers matching only: starting a thread can take a while on a busy machine.
    const worker = await this.started(signal);
    return new Promise<ArrayLike<number>>((resolve, reject) => {
      const finish = (error: Error | undefined, value?: ArrayLike<number>) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (error) {
          this.failed = error;
          void this.close();
          reject(error);
        } else resolve(value!);
      };
      const onMessage = (out: Int32Array | string) => {
        if (typeof out !== "string") finish(undefined, out);
      };
      const onError = (error: Error) => finish(error);
      const onExit = (code: number) => finish(new Error(`the pattern worker exited (code ${code})`));
      const onAbort = () => finish(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
      const timer = setTimeout(() => finish(tooSlowError(this.pattern.source, this.deadlineMs, `a batch of ${lines.length} line(s)`)), this.deadlineMs);
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(lines);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }

  /** The worker once it has compiled the pattern; rejects on abort (and then closes it). */
  private async started(signal: AbortSignal | undefined): Promise<Worker> {
    if (!this.worker) {
      const worker = (this.worker = this.spawn());
      this.ready = new Promise<void>((resolve, reject) => {
        worker.once("message", () => resolve());
        worker.once("error", reject);
        worker.once("exit", (code) => reject(new Error(`the pattern worker exited (code ${code})`)));
      });
      this.ready.catch(() => {});
    }
    const worker = this.worker;
    const ready = this.ready!;
    if (!signal) {
      await ready;
      return worker;
    }
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        ready,
        new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      return worker;
    } catch (error) {
      this.failed = error as Error;
      await this.close();
      throw error;
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: this.pattern.regex.source, flags: this.pattern.regex.flags.replace(/[gy]/g, "") },
      // A runaway pattern must not take the process's memory with it.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: false,
      stderr: false,
    });
    // Never keeps pi alive by itself; a running batch holds its own timer.
    worker.unref();
    return worker;
  }
}

import type { BlobStore } from "../../lib/blobs/index.ts";
import {
  contentText,
  textContent,
  type BlobMeta,
  type Logger,
  type BudgetMeta,
  type ToolHandler,
  type ToolInfo,
  type ToolObservation,
  type ToolWrapper,
} from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { REHYDRATION_TAG } from "../../lib/tags/index.ts";
import { applyRung, clampArgs, describePatch } from "./args.ts";
import type { BudgetOptions } from "./config.ts";
import { largestFittingCount } from "./fit.ts";
import { byteLimit, fits, measure, type AnswerSize, type Budget } from "./measure.ts";
import { clampNote, downshiftNote, NOTE_RESERVE_BYTES, type Attempted } from "./note.ts";

/** Where the first full answer of a downshifted call is kept; absent without the blobs plugin. */
export interface FullAnswerStore {
  store?: BlobStore;
  logger?: Pick<Logger, "warn">;
  /**
   * Writes still in flight, by blob id. The write runs outside the call's attempt timeout (storing
   * must never turn an answer into a timeout); the result stage awaits it ({@link awaitFullAnswers}).
   */
  pending?: Map<string, Promise<void>>;
}

/** True when a rung changes the answer's form (a string or boolean value), not only how much of it comes back. */
const changesForm = (rung: Readonly<Record<string, unknown>>) => Object.values(rung).some((v) => typeof v !== "number");

/**
 * The budget wrapper (stage BUDGET, inside the timeout of one attempt): clamps capped arguments,
 * runs the call, and when the answer is over the tool's budget re-issues it down the tool's ladder,
 * measuring every answer. Before a rung that changes the answer's form (`output: "paths"`), and
 * after the last rung, the tool's `fitArg` (a result count) is lowered to the largest value whose
 * answer fits, so the answer keeps as many whole results as the budget holds. The first answer that
 * fits is returned, else the smallest seen (the blobs stage then stores it whole and cuts it); the
 * first, full answer is stored in the blob cache and named in the note (the way back to all of it).
 * Each re-issue passes a new call context to `next`. `meta.budget.maxBytes` tells later stages (the
 * blobs shaper) the byte budget. Tools that read stored outputs back (tag `rehydration`) are skipped.
 */
export function budgetWrapper(config: BudgetOptions, full: FullAnswerStore = {}): ToolWrapper {
  return (next: ToolHandler, tool: ToolInfo): ToolHandler => {
    if (tool.tags.includes(REHYDRATION_TAG)) return next;
    const own = config.perTool[tool.name] ?? {};
    const budget: Budget = { maxBytes: own.maxBytes ?? config.maxBytes, maxTokens: own.maxTokens ?? config.maxTokens };
    // A re-issued answer carries the note (and the blob pointer): it must fit with them.
    const reserve = Math.min(NOTE_RESERVE_BYTES, Math.floor(byteLimit(budget) / 4));
    const room: Budget = { maxBytes: budget.maxBytes - reserve, maxTokens: budget.maxTokens - Math.ceil(reserve / 4) };
    const limit = byteLimit(budget);
    const ladder = own.ladder ?? [];

    return async (call) => {
      const { args, clamps } = clampArgs(call.args, own.caps);
      const original = await next(args === call.args ? call : { ...call, args });
      const notes: string[] = clamps.length ? [clampNote(tool.name, clamps)] : [];
      const clamped = clamps.length ? clamps : undefined;
      if (original.status !== "SUCCESS") return withBudget(original, limit, notes, { clamped });

      const firstSize = measure(original.content);
      if (fits(firstSize, budget) || (ladder.length === 0 && !own.fitArg)) return withBudget(original, limit, notes, { clamped });

      const run = new Downshift(next, call, room, own.fitArg, { obs: original, size: firstSize, index: 0, args });
      const fitted = await run.walk(ladder);
      const chosen = fitted ?? run.best;
      if (run.attempts.length === 1) return withBudget(original, limit, notes, { clamped });
      const stored = storeFull(full, original, tool.name);
      const shownChange = describePatch(Object.fromEntries(Object.entries(chosen.args).filter(([k, v]) => args[k] !== v)));
      notes.push(
        downshiftNote({
          toolName: tool.name,
          maxBytes: budget.maxBytes,
          firstBytes: firstSize.bytes,
          shownChange,
          shownBytes: chosen.size.bytes,
          fitted: fitted !== undefined,
          hint: own.hint,
          stored,
        }),
      );
      // A fitted answer is a view of the stored full answer: the blobs stage leaves it alone, pruning points to the blob.
      const blob: BlobMeta | undefined =
        stored && fitted ? { truncated: true, id: stored.id, originalBytes: stored.bytes, excerptBytes: chosen.size.bytes } : undefined;
      const downshift = run.attempts.map((a) => ({ change: a.change, bytes: a.size?.bytes ?? null }));
      return withBudget(chosen.obs, limit, notes, { clamped, downshift, shown: chosen.index, fitted: fitted !== undefined }, blob);
    };
  };
}

/** One answer of a downshifted call: what it was, its size, its place among the attempts and the arguments it was asked with. */
interface Entry {
  obs: ToolObservation;
  size: AnswerSize;
  index: number;
  args: Readonly<Record<string, unknown>>;
}

/**
 * One call's way down the ladder: every request it re-issues, the smallest answer seen, and the
 * arguments and size of the last rung (where a count is lowered from).
 */
class Downshift {
  readonly attempts: Attempted[];
  best: Entry;
  private current: Readonly<Record<string, unknown>>;
  private currentSize: AnswerSize | undefined;

  constructor(
    private readonly next: ToolHandler,
    private readonly call: Parameters<ToolHandler>[0],
    private readonly room: Budget,
    private readonly fitArg: string | undefined,
    first: Entry,
  ) {
    this.attempts = [{ change: "", size: first.size }];
    this.best = first;
    this.current = first.args;
    this.currentSize = first.size;
  }

  /** The rungs in order until an answer fits; before a rung that changes the form, and after the last, a lowered count. */
  async walk(ladder: ReadonlyArray<Readonly<Record<string, unknown>>>): Promise<Entry | undefined> {
    for (const rung of ladder) {
      if (this.call.signal.aborted) break;
      if (changesForm(rung)) {
        const counted = await this.fitCount();
        if (counted) return counted;
      }
      const patched = applyRung(this.current, rung);
      if (!patched) continue;
      const change = describePatch(Object.fromEntries(Object.entries(patched).filter(([k, v]) => this.current[k] !== v)));
      this.current = patched;
      const entry = await this.issue(patched, change);
      this.currentSize = entry?.size;
      if (entry && fits(entry.size, this.room)) return entry;
    }
    return this.fitCount();
  }

  /** Issues `patched` (a new context per request: next() refuses the same object twice by design). */
  private async issue(patched: Readonly<Record<string, unknown>>, change: string): Promise<Entry | undefined> {
    const obs = await this.next({ ...this.call, args: patched });
    if (obs.status !== "SUCCESS") {
      this.attempts.push({ change, failed: obs.status === "ERROR" ? obs.error.category : "timeout" });
      return undefined;
    }
    const size = measure(obs.content);
    this.attempts.push({ change, size });
    const entry = { obs, size, index: this.attempts.length - 1, args: patched };
    if (size.bytes < this.best.size.bytes) this.best = entry;
    return entry;
  }

  /** The largest `fitArg` below the current one whose answer fits; undefined when none does. */
  private async fitCount(): Promise<Entry | undefined> {
    const fitArg = this.fitArg;
    const count = fitArg ? this.current[fitArg] : undefined;
    if (!fitArg || typeof count !== "number" || !this.currentSize || this.call.signal.aborted) return undefined;
    const found = new Map<number, Entry>();
    const chosen = await largestFittingCount(count, this.currentSize.bytes, this.room.maxBytes, async (n) => {
      if (this.call.signal.aborted) return undefined;
      const entry = await this.issue({ ...this.current, [fitArg]: n }, `${fitArg}=${n}`);
      if (!entry) return undefined;
      const ok = fits(entry.size, this.room);
      if (ok) found.set(n, entry);
      return { bytes: entry.size.bytes, fits: ok };
    });
    return chosen === undefined ? undefined : found.get(chosen);
  }
}

/**
 * Starts storing the first, full answer and returns its id (the sha256 the store names it by) at
 * once; undefined without a store. A failed write is logged (the pointer then names a blob that
 * blob_read reports as unknown).
 */
function storeFull(full: FullAnswerStore, original: ToolObservation, toolName: string): { id: string; bytes: number } | undefined {
  if (!full.store) return undefined;
  // Redacted by the store (this stage runs inside the redact stage and sees the answer as the tool
  // gave it); the id is that of the bytes the store writes.
  const prepared = full.store.prepare(contentText(original.content));
  const id = prepared.id;
  const write = full.store.put(prepared).then(
    () => undefined,
    (error) => full.logger?.warn("the full answer of a downshifted call could not be stored", { tool: toolName, error: errorText(error) }),
  );
  if (full.pending) {
    full.pending.set(id, write);
    void write.finally(() => full.pending?.get(id) === write && full.pending.delete(id));
  }
  return { id, bytes: prepared.bytes };
}

/** Waits for every write of a full answer still in flight (none fails: failures are logged). */
export async function awaitFullAnswers(pending: ReadonlyMap<string, Promise<void>>): Promise<void> {
  if (pending.size) await Promise.all(pending.values());
}

/** Prepends the notes as their own text block and records the budget (and the stored full answer) in the result's meta. */
function withBudget(obs: ToolObservation, maxBytes: number, notes: string[], extra: Omit<BudgetMeta, "maxBytes">, blob?: BlobMeta): ToolObservation {
  const budget: BudgetMeta = { maxBytes };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) (budget as unknown as Record<string, unknown>)[k] = v;
  return {
    ...obs,
    content: notes.length ? [...textContent(notes.join("\n")), ...obs.content] : obs.content,
    meta: { ...obs.meta, budget, ...(blob ? { blob } : {}) },
  };
}

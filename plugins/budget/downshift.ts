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
    const fitArg = own.fitArg;

    return async (call) => {
      const { args, clamps } = clampArgs(call.args, own.caps);
      const original = await next(args === call.args ? call : { ...call, args });
      const notes: string[] = clamps.length ? [clampNote(tool.name, clamps)] : [];
      const clamped = clamps.length ? clamps : undefined;
      if (original.status !== "SUCCESS") return withBudget(original, limit, notes, { clamped });

      const firstSize = measure(original.content);
      if (fits(firstSize, budget) || (ladder.length === 0 && !fitArg)) return withBudget(original, limit, notes, { clamped });

      type Entry = { obs: ToolObservation; size: AnswerSize; index: number; args: Readonly<Record<string, unknown>> };
      const attempts: Attempted[] = [{ change: "", size: firstSize }];
      let best: Entry = { obs: original, size: firstSize, index: 0, args };
      let fitted: Entry | undefined;
      let current: Readonly<Record<string, unknown>> = args;
      let currentSize: AnswerSize | undefined = firstSize;

      /** Issues `patched` (a new context per request: next() refuses the same object twice by design). */
      const issue = async (patched: Readonly<Record<string, unknown>>, change: string): Promise<Entry | undefined> => {
        const obs = await next({ ...call, args: patched });
        if (obs.status !== "SUCCESS") {
          attempts.push({ change, failed: obs.status === "ERROR" ? obs.error.category : "timeout" });
          return undefined;
        }
        const size = measure(obs.content);
        attempts.push({ change, size });
        const entry = { obs, size, index: attempts.length - 1, args: patched };
        if (size.bytes < best.size.bytes) best = entry;
        return entry;
      };

      /** The largest `fitArg` below the current one whose answer fits; undefined when none does. */
      const fitCount = async (): Promise<Entry | undefined> => {
        const count = fitArg ? current[fitArg] : undefined;
        if (!fitArg || typeof count !== "number" || !currentSize || call.signal.aborted) return undefined;
        const found = new Map<number, Entry>();
        const chosen = await largestFittingCount(count, currentSize.bytes, room.maxBytes, async (n) => {
          if (call.signal.aborted) return undefined;
          const entry = await issue({ ...current, [fitArg]: n }, `${fitArg}=${n}`);
          if (!entry) return undefined;
          const ok = fits(entry.size, room);
          if (ok) found.set(n, entry);
          return { bytes: entry.size.bytes, fits: ok };
        });
        return chosen === undefined ? undefined : found.get(chosen);
      };

      for (const rung of ladder) {
        if (call.signal.aborted) break;
        if (changesForm(rung) && (fitted = await fitCount())) break;
        const patched = applyRung(current, rung);
        if (!patched) continue;
        const change = describePatch(Object.fromEntries(Object.entries(patched).filter(([k, v]) => current[k] !== v)));
        current = patched;
        const entry = await issue(patched, change);
        currentSize = entry?.size;
        if (entry && fits(entry.size, room)) {
          fitted = entry;
          break;
        }
      }
      fitted ??= await fitCount();

      const chosen = fitted ?? best;
      if (attempts.length === 1) return withBudget(original, limit, notes, { clamped });
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
      return withBudget(
        chosen.obs,
        limit,
        notes,
        { clamped, downshift: attempts.map((a) => ({ change: a.change, bytes: a.size?.bytes ?? null })), shown: chosen.index, fitted: fitted !== undefined },
        blob,
      );
    };
  };
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

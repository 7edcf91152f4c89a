/**
 * The session's message entries with their latest context edit, read from pi's session manager
 * (pi 0.87 and later write `context_edit` entries; see core/context-edits.ts). Capability, not
 * version: a session manager with `buildSessionProjection` applies edits to the model context.
 */
import type { AgentMessageLike } from "../../core/content.ts";
import { type BoundaryDraft, MAX_EDITS_BEFORE_RECORD, type SessionEdit, type SessionMessageEntry, type SessionRecord } from "../../core/context-edits.ts";

/** The part of pi's session manager read here. */
export interface BranchReader {
  getBranch(): ReadonlyArray<{ type: string; id: string; message?: unknown; targetId?: unknown; replacement?: unknown; customType?: unknown; data?: unknown }>;
}

/** Whether pi applies context edits to the model context (its session manager builds a projection). */
export function appliesContextEdits(sessionManager: unknown): sessionManager is BranchReader {
  const sm = sessionManager as { buildSessionProjection?: unknown; getBranch?: unknown } | null;
  return typeof sm?.buildSessionProjection === "function" && typeof sm.getBranch === "function";
}

/**
 * Message entries of the active branch, oldest first, each with the edits that target it (oldest
 * first, the latest as `edit`); `pending` are drafts proposed earlier in the same boundary (not yet
 * in the session), applied last.
 */
export function sessionMessageEntries(sessionManager: BranchReader, pending: readonly unknown[] = []): SessionMessageEntry[] {
  const edits = new Map<string, Array<SessionEdit | null>>();
  const add = (targetId: string, replacement: unknown, entryId?: string) => {
    let list = edits.get(targetId);
    if (!list) edits.set(targetId, (list = []));
    list.push(editOf(replacement, entryId));
  };
  const messages: Array<{ entryId: string; raw: AgentMessageLike }> = [];
  for (const e of sessionManager.getBranch()) {
    if (e.type === "message" && e.message && typeof e.message === "object") messages.push({ entryId: e.id, raw: e.message as AgentMessageLike });
    else if (e.type === "context_edit" && typeof e.targetId === "string") add(e.targetId, e.replacement, e.id);
  }
  for (const d of pending as Array<Partial<BoundaryDraft> & { targetId?: unknown; replacement?: unknown }>) {
    if (d?.type === "context_edit" && typeof d.targetId === "string") add(d.targetId, d.replacement);
  }
  return messages.map((m) => {
    const list = edits.get(m.entryId);
    return list ? { ...m, edit: list[list.length - 1]!, edits: list } : m;
  });
}

/** pi's replacement (`{ content }` or null) as {@link SessionMessageEntry.edit}. */
function editOf(replacement: unknown, entryId: string | undefined): SessionEdit | null {
  if (!(replacement && typeof replacement === "object" && "content" in replacement)) return null;
  const content = (replacement as { content: unknown }).content;
  return typeof entryId === "string" ? { content, entryId } : { content };
}

/**
 * The `custom` records of `kind` on the active branch, oldest first, each with the run of
 * `context_edit` entries directly before it (see {@link SessionRecord}).
 */
export function sessionRecords(sessionManager: BranchReader, kind: string): SessionRecord[] {
  const out: SessionRecord[] = [];
  let run: Array<{ entryId: string; targetId: string }> = [];
  for (const e of sessionManager.getBranch()) {
    if (e.type === "context_edit" && typeof e.targetId === "string" && typeof e.id === "string") {
      run.push({ entryId: e.id, targetId: e.targetId });
      // A longer run keeps its last ones (cut in batches: linear however long the run).
      if (run.length >= 2 * MAX_EDITS_BEFORE_RECORD) run = run.slice(-MAX_EDITS_BEFORE_RECORD);
      continue;
    }
    if (e.type === "custom" && e.customType === kind && e.data && typeof e.data === "object")
      out.push({ data: e.data as Record<string, unknown>, editsBefore: run.length > MAX_EDITS_BEFORE_RECORD ? run.slice(-MAX_EDITS_BEFORE_RECORD) : run });
    run = [];
  }
  return out;
}

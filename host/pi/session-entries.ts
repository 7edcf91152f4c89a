/**
 * The session's message entries with their latest context edit, read from pi's session manager
 * (pi 0.87 and later write `context_edit` entries; see core/context-edits.ts). Capability, not
 * version: a session manager with `buildSessionProjection` applies edits to the model context.
 */
import type { AgentMessageLike } from "../../core/content.ts";
import type { BoundaryDraft, SessionMessageEntry } from "../../core/context-edits.ts";

/** The part of pi's session manager read here. */
export interface BranchReader {
  getBranch(): ReadonlyArray<{ type: string; id: string; message?: unknown; targetId?: unknown; replacement?: unknown }>;
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
  const edits = new Map<string, Array<{ content: unknown } | null>>();
  const add = (targetId: string, replacement: unknown) => {
    let list = edits.get(targetId);
    if (!list) edits.set(targetId, (list = []));
    list.push(editOf(replacement));
  };
  const messages: Array<{ entryId: string; raw: AgentMessageLike }> = [];
  for (const e of sessionManager.getBranch()) {
    if (e.type === "message" && e.message && typeof e.message === "object") messages.push({ entryId: e.id, raw: e.message as AgentMessageLike });
    else if (e.type === "context_edit" && typeof e.targetId === "string") add(e.targetId, e.replacement);
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
function editOf(replacement: unknown): { content: unknown } | null {
  return replacement && typeof replacement === "object" && "content" in replacement ? { content: (replacement as { content: unknown }).content } : null;
}

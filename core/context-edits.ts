/**
 * Context edits: pi 1.x's `context_edit` session entries (pi 0.87 and later). At the turn boundary
 * (`turn_end`) an extension may append entries that replace the content of an earlier message in
 * every later model context; pi persists them in the session file, so they survive a resume and are
 * what pi itself shows as the model-visible projection. The raw message stays in the session.
 *
 * The core's part is neutral: the `contextEdits` waterfall collects drafts at the boundary, and
 * both the boundary and the `context` event can read the session's message entries with their
 * latest edit ({@link SessionMessageEntry}). Which edits to write is a plugin's decision.
 */
import type { AgentMessageLike } from "./content.ts";

/** One `context_edit` of the session: the content it puts in place, and pi's id of its entry. */
export interface SessionEdit {
  readonly content: unknown;
  /** pi's id of the edit entry; absent for a draft proposed earlier at the same boundary (not yet in the session). */
  readonly entryId?: string;
}

/**
 * A `custom` record on the session's active branch with the context edits pi appended right before it:
 * pi appends a boundary's drafts in the order they were proposed, so a plugin that proposes its edits
 * and then its record finds, at the next request, the ids of exactly the edit entries it wrote there.
 */
export interface SessionRecord {
  readonly data: Record<string, unknown>;
  /** The run of `context_edit` entries directly before the record on the branch, oldest first (at most {@link MAX_EDITS_BEFORE_RECORD}). */
  readonly editsBefore: ReadonlyArray<{ readonly entryId: string; readonly targetId: string }>;
}

/** Most edits listed before one record (a boundary's edits; older ones in a longer run are left out). */
export const MAX_EDITS_BEFORE_RECORD = 10_000;

/** One message entry of the session's active branch, with the latest context edit that targets it. */
export interface SessionMessageEntry {
  /** pi's session entry id. */
  readonly entryId: string;
  /** The message as the session stored it, before any edit. */
  readonly raw: AgentMessageLike;
  /**
   * The latest `context_edit` targeting this entry on the active branch (edits proposed earlier in
   * the same boundary included): the content it puts in place, `null` for an omission. Absent: no edit.
   */
  readonly edit?: SessionEdit | null;
  /**
   * Every `context_edit` targeting this entry on the active branch, oldest first (drafts of the same
   * boundary last); `edit` is its last element. Edits stack: undoing one's own edit means putting back
   * the one beneath it, which may be another extension's. Absent: no edit.
   */
  readonly edits?: ReadonlyArray<SessionEdit | null>;
}

/** A `context_edit` draft: replace the content of entry `targetId` in every later model context. */
export interface ContextEditDraft {
  readonly type: "context_edit";
  readonly targetId: string;
  /** The new content, as pi's `ContextEditEntry` holds it (`null` leaves the message out of the context). */
  readonly replacement: { readonly content: AgentMessageLike["content"] } | null;
}

/** A record draft: a pi `custom` entry (never sent to the model), readable later with `SessionStore.entries(customType)`. */
export interface RecordDraft {
  readonly type: "custom";
  readonly customType: string;
  readonly data: Record<string, unknown>;
}

/** What the `contextEdits` waterfall collects: appended to pi's boundary entries in order. */
export type BoundaryDraft = ContextEditDraft | RecordDraft;

/** Side information for the `contextEdits` waterfall (pi's `turn_end` on lines with boundary entries). */
export interface TurnBoundaryInfo {
  readonly sessionId: string;
  /** pi's index of the turn that ended within the current run (0-based). */
  readonly turnIndex: number;
  /** The session's message entries on the active branch with their latest edit; read on demand (O(entries)). */
  readonly entries: () => readonly SessionMessageEntry[];
  /** The session's `custom` records of a kind on the active branch, with the edits right before each ({@link SessionRecord}); O(entries). */
  readonly records: (kind: string) => readonly SessionRecord[];
  readonly signal?: AbortSignal;
}

/**
 * pi's identity of a message: role, timestamp, and the tool call id of a tool result or the tool
 * call ids of an assistant message (two messages may share a millisecond). pi never edits a message
 * once it is in the history, and a context edit keeps the role and metadata and, for an assistant
 * message, the calls (a result must keep its call), so an edited message and its raw entry share it.
 */
export function messageIdentity(message: AgentMessageLike): string {
  const m = message as { role?: unknown; timestamp?: unknown; toolCallId?: unknown; content?: unknown };
  let calls = typeof m.toolCallId === "string" ? m.toolCallId : "";
  if (m.role === "assistant" && Array.isArray(m.content)) {
    for (const b of m.content as Array<{ type?: unknown; id?: unknown }>) if (b?.type === "toolCall" && typeof b.id === "string") calls += `,${b.id}`;
  }
  return `${String(m.role)}|${typeof m.timestamp === "number" ? m.timestamp : String(m.timestamp)}|${calls}`;
}

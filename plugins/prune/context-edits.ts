/**
 * Pruning as pi context edits (pi 0.87 and later): what the pruner replaced in the last request
 * becomes `context_edit` session entries at the end of the turn, and pi's context from then on
 * carries the placeholders. The pruner itself always works on the raw history: before it runs, the
 * messages this plugin edited are given back their raw content ({@link restoreRaw}), so its
 * decisions, its sizes and the messages sent are exactly those of the context-only path.
 *
 * Which edits are this plugin's is known from its own records (a `custom` entry beside the edits:
 * target entry id and a hash of the replacement), matched against the latest `context_edit` pi holds
 * for that entry. Nothing is recognised by text: a tool result that prints a placeholder has no edit
 * entry, so it is neither restored nor treated as pruned. An edit by anyone else (a later edit with
 * another replacement, an omission) is left as pi applies it.
 */
import { createHash } from "node:crypto";
import { type AgentMessageLike, type ContextEditDraft, messageIdentity, type SessionMessageEntry, type SessionStore } from "../../core/sdk.ts";

/** Record kind of the edits this plugin wrote (one record per boundary). */
export const EDITS_KIND = "governor:prune-edits";

/** One edit this plugin wrote: the target entry and a hash of its replacement. */
export interface EditRecord {
  targetId: string;
  hash: string;
}

/** Longest entry id accepted from a record (pi's ids are 8 hex digits; session files are untrusted). */
const MAX_ID_CHARS = 128;
/** Edit records kept per session; older ones are dropped first (a re-edit moves a target to the end). */
export const MAX_EDIT_RECORDS = 50_000;

/** Hashes of content objects already hashed: pi hands the same entry objects to every request. */
const hashes = new WeakMap<object, string>();

/**
 * A hash of message content as pi stores it (JSON of the content value). Content objects are never
 * changed in place (pi's entries, the pruner's rendered replacements), so an object's hash is kept.
 */
export function contentHash(content: unknown): string {
  const known = typeof content === "object" && content !== null ? hashes.get(content) : undefined;
  if (known !== undefined) return known;
  const hash = createHash("sha256")
    .update(JSON.stringify(content ?? null))
    .digest("base64url")
    .slice(0, 22);
  if (typeof content === "object" && content !== null) hashes.set(content, hash);
  return hash;
}

/** The edit records of a session, by target entry id (the latest record of a target wins). */
export function loadEditRecords(store: SessionStore): Map<string, string> {
  const ours = new Map<string, string>();
  for (const r of store.entries(EDITS_KIND)) {
    if (!Array.isArray(r.edits)) continue;
    for (const e of r.edits as Array<Partial<EditRecord>>) {
      if (typeof e?.targetId !== "string" || typeof e.hash !== "string" || e.targetId.length > MAX_ID_CHARS || e.hash.length > 64) continue;
      remember(ours, e.targetId, e.hash);
    }
  }
  return ours;
}

/** Notes an edit record, keeping at most {@link MAX_EDIT_RECORDS}. */
export function remember(ours: Map<string, string>, targetId: string, hash: string): void {
  ours.delete(targetId);
  ours.set(targetId, hash);
  if (ours.size > MAX_EDIT_RECORDS) ours.delete(ours.keys().next().value!);
}

/** Entries by message identity; identities held by more than one entry are left out (never guessed). */
function byIdentity(entries: readonly SessionMessageEntry[], keep: (e: SessionMessageEntry) => boolean): Map<string, SessionMessageEntry | null> {
  const out = new Map<string, SessionMessageEntry | null>();
  for (const e of entries) {
    const key = messageIdentity(e.raw);
    if (out.has(key)) out.set(key, null);
    else if (keep(e)) out.set(key, e);
    else out.set(key, null);
  }
  return out;
}

/** Whether entry `e`'s latest edit is the one this plugin wrote (by its records). */
function editedByUs(e: SessionMessageEntry, ours: ReadonlyMap<string, string>): boolean {
  const hash = ours.get(e.entryId);
  return hash !== undefined && e.edit != null && contentHash(e.edit.content) === hash;
}

/**
 * `messages` with the raw content back in every message whose entry's latest edit is this plugin's
 * (`ours`: target entry id -> replacement hash); undefined when there is none. Role, metadata and
 * every other message are untouched.
 */
export function restoreRaw(
  messages: readonly AgentMessageLike[],
  entries: readonly SessionMessageEntry[],
  ours: ReadonlyMap<string, string>,
): AgentMessageLike[] | undefined {
  const edited = byIdentity(entries, (e) => editedByUs(e, ours));
  let out: AgentMessageLike[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "toolResult" && m.role !== "assistant") continue;
    const e = edited.get(messageIdentity(m));
    if (!e || e.raw.role !== m.role) continue;
    out ??= messages.slice();
    out[i] = { ...m, content: e.raw.content } as AgentMessageLike;
  }
  return out;
}

/**
 * The `context_edit` drafts that make the session hold what the pruner sent: one per tool result or
 * assistant message whose content `output[i]` differs from `input[i]` (the pruner's input and output
 * of one request, same length), unless the entry's latest edit already is that content or the
 * content equals the raw one. Messages without exactly one entry (nested calls, injected messages)
 * are never edited. `settled` keeps the output objects found settled: the pruner reuses its rendered
 * prefix between requests, so a boundary hashes only what it rendered since the last one.
 */
export function editsFrom(
  input: readonly AgentMessageLike[],
  output: readonly AgentMessageLike[],
  entries: readonly SessionMessageEntry[],
  settled: WeakSet<object> = new WeakSet(),
): { drafts: ContextEditDraft[]; records: EditRecord[] } {
  const drafts: ContextEditDraft[] = [];
  const records: EditRecord[] = [];
  if (input.length !== output.length) return { drafts, records };
  const byKey = byIdentity(entries, () => true);
  for (let i = 0; i < input.length; i++) {
    const before = input[i]!;
    const after = output[i]!;
    if (before === after || settled.has(after) || before.role !== after.role || (before.role !== "toolResult" && before.role !== "assistant")) continue;
    const e = byKey.get(messageIdentity(before));
    if (!e || e.raw.role !== before.role) continue;
    const hash = contentHash(after.content);
    // Already in the session, or the raw content itself: settled while the pruner reuses this object.
    if ((e.edit != null && contentHash(e.edit.content) === hash) || hash === contentHash(e.raw.content)) {
      settled.add(after);
      continue;
    }
    // A copy: pi keeps the draft, the pruner keeps reusing its rendered replacement.
    drafts.push({ type: "context_edit", targetId: e.entryId, replacement: { content: structuredClone(after.content) as AgentMessageLike["content"] } });
    records.push({ targetId: e.entryId, hash });
  }
  return { drafts, records };
}

/**
 * Pruning as pi context edits (pi 0.87 and later): what the pruner replaced in the last request
 * becomes `context_edit` session entries at the end of the turn, and pi's context from then on
 * carries the placeholders. The pruner itself always works on the history as it would be without
 * this plugin's edits: before it runs, the messages this plugin edited are given back the content in
 * force beneath its own edits ({@link undoOwnEdits}), so its decisions, its sizes and the messages
 * sent are exactly those of the context-only path.
 *
 * Edits stack, and other extensions write them too (a secret scrubber replaces a result that holds a
 * password). Undoing this plugin's edits takes off only the run of its own edits at the top of an
 * entry's stack and puts back what lies beneath: the raw message only when no other edit is under
 * them, else the other extension's content. An entry whose latest edit is someone else's (a later
 * replacement, an omission) is left as pi applies it.
 *
 * Which edits are this plugin's is known by their entries: its record (a `custom` entry that pi
 * appends right after the edits of the same boundary) names the edit entries right before it
 * ({@link ownEditIds}). Nothing is recognised by content: another extension's edit that carries the
 * same placeholder is not this plugin's, and a tool result that prints a placeholder has no edit
 * entry, so it is neither restored nor treated as pruned.
 */
import { createHash } from "node:crypto";
import type { AgentMessageLike, ContextEditDraft, SessionMessageEntry, SessionRecord } from "../../core/index.ts";
import { messageIdentity } from "../../core/context-edits.ts";

/** Record kind of the edits this plugin wrote (one record per boundary, appended right after its edits). */
export const EDITS_KIND = "governor:prune-edits";

/** One edit this plugin wrote: the target entry and a hash of its replacement. */
export interface EditRecord {
  targetId: string;
  hash: string;
}

/** Longest entry id accepted from a record (pi's ids are 8 hex digits; session files are untrusted). */
const MAX_ID_CHARS = 128;

/** This plugin's edits: pi's ids of the `context_edit` entries it wrote. */
export type OwnEdits = ReadonlySet<string>;

/** Hashes of content objects already hashed: pi hands the same entry objects to every request. */
const hashes = new WeakMap<object, string>();

/**
 * A hash of message content as pi stores it (JSON of the content value). Content objects are never
 * changed in place (pi's entries, the pruner's rendered replacements), so an object's hash is kept.
 * Used to tell whether the session already holds a replacement, never whose an edit is.
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

/**
 * The ids of the edit entries this plugin wrote, from its records on the active branch. pi appends a
 * boundary's drafts in order, so a record of this plugin stands right after the edits it lists: a
 * record names as its own exactly the last N edit entries before it, and only when their targets are
 * the N targets it lists, in that order. An edit is this plugin's by its entry, never by its content:
 * another extension's edit that carries the same placeholder is not, and neither is one a record in a
 * tampered file claims without standing right after it (whoever writes the session file can still do
 * anything: see docs/security.md).
 */
export function ownEditIds(records: readonly SessionRecord[]): Set<string> {
  const ours = new Set<string>();
  for (const r of records) {
    const listed = r.data.edits;
    if (!Array.isArray(listed) || !listed.length || listed.length > r.editsBefore.length) continue;
    const before = r.editsBefore.slice(r.editsBefore.length - listed.length);
    const matches = listed.every(
      (e: Partial<EditRecord> | null, i) => typeof e?.targetId === "string" && e.targetId.length <= MAX_ID_CHARS && e.targetId === before[i]!.targetId,
    );
    if (matches) for (const b of before) ours.add(b.entryId);
  }
  return ours;
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

/**
 * The content in force beneath this plugin's edits of entry `e`: its edits (by entry id) are taken
 * off the top of the entry's stack; what is left on top is the content, the raw message's when
 * nothing is left. Undefined when the latest edit is not this plugin's, or when beneath them is an
 * omission (left as pi applies it).
 */
export function contentBeneathOwnEdits(e: SessionMessageEntry, ours: OwnEdits): { content: unknown } | undefined {
  const stack = e.edits ?? (e.edit === undefined ? [] : [e.edit]);
  if (!stack.length) return undefined;
  let i = stack.length - 1;
  while (i >= 0) {
    const edit = stack[i];
    if (edit == null || edit.entryId === undefined || !ours.has(edit.entryId)) break;
    i--;
  }
  if (i === stack.length - 1) return undefined;
  if (i < 0) return { content: e.raw.content };
  const beneath = stack[i];
  if (beneath == null) return undefined;
  // pi makes a string replacement of an assistant or tool result one text block, as those roles need.
  return { content: typeof beneath.content === "string" ? [{ type: "text", text: beneath.content }] : beneath.content };
}

/**
 * `messages` with this plugin's edits undone: every message whose entry's latest edit is this
 * plugin's gets the content in force beneath its edits ({@link contentBeneathOwnEdits}: another
 * extension's, or the raw one when there is none); undefined when no message changes. Role, metadata
 * and every other message are untouched.
 */
export function undoOwnEdits(messages: readonly AgentMessageLike[], entries: readonly SessionMessageEntry[], ours: OwnEdits): AgentMessageLike[] | undefined {
  const beneath = new Map<SessionMessageEntry, { content: unknown }>();
  const edited = byIdentity(entries, (e) => {
    const content = contentBeneathOwnEdits(e, ours);
    if (content) beneath.set(e, content);
    return content !== undefined;
  });
  let out: AgentMessageLike[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "toolResult" && m.role !== "assistant") continue;
    const e = edited.get(messageIdentity(m));
    if (!e || e.raw.role !== m.role) continue;
    out ??= messages.slice();
    out[i] = { ...m, content: beneath.get(e)!.content } as AgentMessageLike;
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

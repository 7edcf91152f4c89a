/**
 * Cheap message identity. pi hands the `context` event a fresh deep copy of the history on every
 * model call, so object identity cannot tell an old message from a new one. Two levels:
 * - a quick key (role, timestamp, tool call id, error flag, block count, lengths of the first and
 *   last block): O(1) to check, enough to recognise a message pi already sent at the same index;
 * - a fingerprint (ids, timestamps, every block's kind and length, a sample from both ends of each
 *   text, pin and blob marks), hashed: computed only when the quick key does not match.
 * Neither reads whole texts, so a call on a long session costs O(1) per old message and the real
 * work (sizes, decisions, placeholders) is done once per new message and cached.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";

/** Characters sampled from each end of a text for the fingerprint. */
const SAMPLE = 24;

/** FNV-1a over a string, 32-bit, as 8 hex chars. Deterministic across processes. */
export function fnv1a(text: string, seed = 0x811c9dc5): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

function textSample(text: string): string {
  return text.length <= SAMPLE * 2 ? text : `${text.slice(0, SAMPLE)}${text.slice(-SAMPLE)}`;
}

function blockSignature(block: unknown): string {
  if (!block || typeof block !== "object") return "?";
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return `t${String((b.text as string | undefined)?.length ?? 0)}:${textSample(String(b.text ?? ""))}`;
    case "image":
      return `i${String((b.data as string | undefined)?.length ?? 0)}:${textSample(String(b.data ?? ""))}`;
    case "thinking":
      return `h${String((b.thinking as string | undefined)?.length ?? 0)}`;
    case "toolCall":
      return `c${String(b.id)}`;
    default:
      return String(b.type);
  }
}

/**
 * A short string that changes when a message changes in any way that matters for pruning. Equal
 * fingerprints at the same index mean "the same message as last time" for the per-message cache.
 */
export function fingerprint(message: AgentMessageLike): string {
  const m = message as Record<string, unknown>;
  let sig = `${String(m.role)}|${String(m.timestamp ?? "")}|${String(m.toolCallId ?? "")}|${m.isError === true ? "E" : ""}`;
  const meta = messageMeta(message);
  if (meta.pinned || meta.blob?.id !== undefined) sig += `|${meta.pinned ? "P" : ""}${meta.blob?.id ?? ""}`;
  const content = m.content;
  if (typeof content === "string") sig += `|s${content.length}:${textSample(content)}`;
  else if (Array.isArray(content)) for (const block of content) sig += `|${blockSignature(block)}`;
  for (const field of ["summary", "command", "output"]) {
    const v = m[field];
    if (typeof v === "string") sig += `|${field}${v.length}:${textSample(v)}`;
  }
  return fnv1a(sig) + fnv1a(sig, 0x9747b28c);
}

/** The quick key of a message (see the module comment). */
export interface QuickKey {
  role: unknown;
  timestamp: unknown;
  id: unknown;
  isError: unknown;
  /** Block count, or -1 for string content. */
  blocks: number;
  first: number;
  last: number;
}

function blockLength(block: unknown): number {
  if (!block || typeof block !== "object") return -1;
  const b = block as { text?: unknown; data?: unknown; thinking?: unknown; id?: unknown };
  const v = b.text ?? b.data ?? b.thinking ?? b.id;
  return typeof v === "string" ? v.length : -2;
}

/** The quick key of `message`. */
export function quickKey(message: AgentMessageLike): QuickKey {
  const m = message as Record<string, unknown>;
  const c = m.content;
  const list = Array.isArray(c) ? c : undefined;
  return {
    role: m.role,
    timestamp: m.timestamp,
    id: m.toolCallId,
    isError: m.isError,
    blocks: list ? list.length : -1,
    first: list ? blockLength(list[0]) : typeof c === "string" ? c.length : -3,
    last: list ? blockLength(list[list.length - 1]) : -3,
  };
}

/**
 * Whether `message` has quick key `key`. Only trusted for messages with a timestamp (pi stamps every
 * message); without one the caller falls back to the full fingerprint.
 */
export function matchesQuickKey(message: AgentMessageLike, key: QuickKey): boolean {
  const m = message as Record<string, unknown>;
  if (key.timestamp === undefined || m.timestamp !== key.timestamp || m.role !== key.role || m.toolCallId !== key.id || m.isError !== key.isError) return false;
  const c = m.content;
  if (!Array.isArray(c)) return key.blocks === -1 && typeof c === "string" && c.length === key.first;
  return c.length === key.blocks && blockLength(c[0]) === key.first && blockLength(c[c.length - 1]) === key.last;
}

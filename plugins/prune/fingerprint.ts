/**
 * The full identity of a message, for the cases pi's own identity (lib/context/identity.ts: role,
 * timestamp, tool call id) does not settle: a message never seen at its index, or one without a
 * timestamp. A fingerprint (ids, timestamps, every block's kind and length, a sample from both ends
 * of each text, pin and blob marks), hashed. It never reads whole texts; the real work (sizes,
 * decisions, placeholders) is done once per new message and cached.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import { fnv1a } from "../../lib/context/index.ts";

/** Characters sampled from each end of a text for the fingerprint. */
const SAMPLE = 24;

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

/**
 * How long the placeholders pruning writes are: every distinct placeholder text a policy sends over
 * a session, by tool. A placeholder is resent on every later request, so its length is a cost that
 * repeats; the bench and a unit test hold its median under a bound.
 */
import { createHash } from "node:crypto";
import type { AgentMessageLike } from "../../core/index.ts";
import { isPlaceholder } from "../../plugins/prune/index.ts";
import type { Policy } from "./policies.ts";
import type { SimRequest } from "./simulate.ts";

/** One distinct placeholder a policy sent. */
export interface SentPlaceholder {
  toolName: string;
  text: string;
}

/** Every distinct placeholder text `policy` sends over `requests` (one fresh session), in first-sent order. */
export async function sentPlaceholders(requests: readonly SimRequest[], policy: Policy): Promise<SentPlaceholder[]> {
  const transform = await policy.start();
  const seen = new Set<string>();
  const out: SentPlaceholder[] = [];
  for (const request of requests) {
    for (const m of await transform(request.messages)) {
      if (m.role !== "toolResult" || !Array.isArray(m.content) || m.content.length !== 1) continue;
      const text = (m.content[0] as { text?: unknown }).text;
      if (typeof text !== "string" || !isPlaceholder(text) || seen.has(text)) continue;
      seen.add(text);
      out.push({ toolName: String((m as { toolName?: unknown }).toolName), text });
    }
  }
  return out;
}

/**
 * `requests` as a session of the kota preset with the recall plugin sees them: every tool result
 * names a stored blob (the sha256 of its text, `details.blobId`), so every placeholder carries a
 * `blob_read` way back. Results that already name a blob keep theirs.
 */
export function withRecallBlobs(requests: readonly SimRequest[]): SimRequest[] {
  const stamped = new WeakMap<object, AgentMessageLike>();
  const stamp = (m: AgentMessageLike): AgentMessageLike => {
    if (m.role !== "toolResult") return m;
    let out = stamped.get(m);
    if (!out) {
      const details = ((m as { details?: unknown }).details ?? {}) as Record<string, unknown>;
      const id = createHash("sha256")
        .update(JSON.stringify(m.content ?? ""))
        .digest("hex");
      out = typeof details.blobId === "string" ? m : ({ ...m, details: { ...details, truncated: false, blobId: id } } as AgentMessageLike);
      stamped.set(m, out);
    }
    return out;
  };
  return requests.map((r) => ({ ...r, messages: r.messages.map(stamp) }));
}

/** The median of `values` (the lower middle for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

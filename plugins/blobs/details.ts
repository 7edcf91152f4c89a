/**
 * Keeps tool-result details small: pi persists them in the session file, so a tool that puts its raw
 * answer in details (MCP structuredContent, say) would store a second copy of every output.
 */
import { META_DETAILS_KEYS } from "../../core/result-meta.ts";
import { utf8Bytes } from "../../lib/size/index.ts";

/** Keys never dropped: the stages' result meta (status, error, budget, blob, pin, retry, ...). */
const ALWAYS_KEPT: ReadonlySet<string> = new Set(META_DETAILS_KEYS);

/**
 * Returns `details` unchanged when its JSON is at most `maxBytes`; otherwise a copy without the largest
 * keys (largest first) until it fits, listing them in `droppedDetails`. Values that cannot be
 * serialized count as large.
 */
export function boundDetails(details: Record<string, unknown> | undefined, maxBytes: number): Record<string, unknown> | undefined {
  if (!details) return details;
  const sizes = Object.entries(details).map(([key, value]) => [key, sizeOf(value)] as const);
  let total = sizes.reduce((sum, [key, size]) => sum + size + key.length + 4, 2);
  if (total <= maxBytes) return details;
  const out: Record<string, unknown> = { ...details };
  const dropped: string[] = [];
  for (const [key, size] of [...sizes].sort((a, b) => b[1] - a[1])) {
    if (total <= maxBytes) break;
    if (ALWAYS_KEPT.has(key)) continue;
    delete out[key];
    dropped.push(key);
    total -= size + key.length + 4;
  }
  return { ...out, droppedDetails: dropped };
}

function sizeOf(value: unknown): number {
  try {
    return utf8Bytes(JSON.stringify(value) ?? "");
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

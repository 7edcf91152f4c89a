/**
 * Pinning: results that are never pruned.
 * - On arrival (`toolResult` tap at RESULT_STAGE.PIN): tools in `pinTools`, and the `impactTools` when
 *   `pinImpactSummaries`, get `meta.pinned` (details JSON `pinned: true`) and a visible marker line.
 * - By the user: `/<root> pin` pins the last meaning-bearing result of the current context (the
 *   newest successful tool result that is not a rehydration/status read and not already a
 *   placeholder) and persists the pin in the session.
 */
import { resultMeta, withResultMeta, type AgentMessageLike, type ToolResultValue } from "../../core/index.ts";
import type { PruneOptions } from "./config.ts";
import { isPinnedInMessage } from "./decide.ts";
import { markContent } from "./pin-marker.ts";
import { isPrunedMessage } from "./pruned-mark.ts";

/** The pin list in force: config `pinTools`, plus the `impactTools` when `pinImpactSummaries`. */
export function pinOnArrival(options: Pick<PruneOptions, "pinTools" | "pinImpactSummaries" | "impactTools">): ReadonlySet<string> {
  return new Set([...options.pinTools, ...(options.pinImpactSummaries ? options.impactTools : [])]);
}

/** The toolResult transform: pins results of tools in `pinned`; leaves every other result alone. */
export function pinResult(value: ToolResultValue, pinned: ReadonlySet<string>): ToolResultValue | undefined {
  if (!pinned.has(value.toolName) || value.isError) return undefined;
  if (resultMeta(value).pinned) return undefined;
  return withResultMeta({ ...value, content: markContent(value.content, "arrival") }, { pinned: true });
}

/** The result `/<root> pin` would pin: newest first, skipping errors, skip-listed tools and placeholders. */
export function lastMeaningBearing(
  messages: readonly AgentMessageLike[],
  skip: ReadonlySet<string>,
): { toolCallId: string; toolName: string; index: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "toolResult") continue;
    const r = m as { toolCallId: string; toolName: string; isError?: boolean; content?: unknown };
    if (r.isError || skip.has(r.toolName)) continue;
    const blocks = Array.isArray(r.content) ? (r.content as Array<{ type?: string; text?: string }>) : [];
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text ?? "")
      .join("");
    if (!text.trim() || isPrunedMessage(m)) continue;
    return { toolCallId: r.toolCallId, toolName: r.toolName, index: i };
  }
  return undefined;
}

/** Whether a message is pinned by its own details or by a user pin. */
export function isPinned(message: AgentMessageLike, userPins: ReadonlyMap<string, unknown>): boolean {
  return isPinnedInMessage(message) || (message.role === "toolResult" && userPins.has(String((message as { toolCallId?: unknown }).toolCallId)));
}

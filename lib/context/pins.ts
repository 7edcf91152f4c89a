/**
 * User pins as the session keeps them: the pin command (prune) writes one record per pinned tool
 * result, and everything that must leave a pinned result alone (pruning, folding) reads them back.
 */
import type { SessionStore } from "../../core/index.ts";

/** Record kind of one user pin. */
export const PIN_KIND = "governor:prune-pin";

/** A result the user pinned with the pin command. */
export interface PinRecord {
  toolCallId: string;
  toolName: string;
}

/** Pins from the store, by tool call id. */
export function loadPins(store: SessionStore): Map<string, PinRecord> {
  const pins = new Map<string, PinRecord>();
  for (const r of store.entries(PIN_KIND)) {
    if (typeof r.toolCallId === "string") pins.set(r.toolCallId, { toolCallId: r.toolCallId, toolName: String(r.toolName ?? "") });
  }
  return pins;
}

/**
 * Small text helpers shared by the renderers: capped lists that say how many were left out, and
 * one-line cuts. Every renderer turns KotaDB's pretty-printed JSON into summary-first lines.
 */

/** `label (n): a, b, c, +k more` or undefined for an empty list. `cap` items at most. */
export function listLine(label: string, items: readonly string[], cap: number): string | undefined {
  if (items.length === 0) return undefined;
  const shown = items.slice(0, cap).join(", ");
  const more = items.length > cap ? `, +${items.length - cap} more` : "";
  return `${label} (${items.length}): ${shown}${more}`;
}

/** `text` cut to `max` characters with an ellipsis. */
export function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Unique values in first-seen order. */
export function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** Joins the defined lines with newlines. */
export function lines(...parts: Array<string | undefined | false>): string {
  return parts.filter((p): p is string => typeof p === "string" && p.length > 0).join("\n");
}

/** A string field of an unknown object, or "". */
export function s(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

/** An array field of an unknown value, or []. */
export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string array (non-strings dropped). */
export function strs(value: unknown): string[] {
  return arr(value).filter((v): v is string => typeof v === "string");
}

/** An object field, or {}. */
export function obj(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

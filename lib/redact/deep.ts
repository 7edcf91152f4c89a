/**
 * Redaction of structured values (a result's details, an error's JSON): every string leaf, to a
 * bounded depth and breadth, copied only where something changed so an unchanged value keeps its
 * identity (a handler returns only what it changed).
 */
import type { Redactor } from "./redactor.ts";

/** Deepest level visited; deeper values are kept as they are (details are small, shallow records). */
const MAX_DEPTH = 8;
/** Most entries visited per object or array. */
const MAX_ENTRIES = 10_000;

/** `value` with every string leaf redacted; the same object when nothing changed. */
export function redactValue<T>(value: T, redactor: Pick<Redactor, "redact">, depth = 0): T {
  if (typeof value === "string") return redactor.redact(value) as T;
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    const n = Math.min(value.length, MAX_ENTRIES);
    for (let i = 0; i < n; i++) {
      const next = redactValue(value[i], redactor, depth + 1);
      if (next !== value[i]) (out ??= [...value])[i] = next;
    }
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // class instances, buffers: left alone
  let out: Record<string, unknown> | undefined;
  let seen = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (++seen > MAX_ENTRIES) break;
    const next = redactValue(v, redactor, depth + 1);
    if (next !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = next;
  }
  return (out ?? value) as T;
}

/** A partial at every depth of plain objects; arrays and other values are replaced whole. */
export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** True for `{}`-style objects (not arrays, not class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** A copy of `value` without `__proto__`/`constructor`/`prototype` keys at any depth (config files are untrusted). */
export function withoutUnsafeKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUnsafeKeys) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (!UNSAFE_KEYS.has(key)) out[key] = withoutUnsafeKeys(v);
  return out as T;
}

/**
 * Merges `override` onto `base`: plain objects merge key by key, everything else (arrays included)
 * is replaced. `undefined` in the override keeps the base value. Neither input is modified.
 */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(override)) return (override === undefined ? base : override) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    // Config files are untrusted: never let them reach the prototype.
    if (UNSAFE_KEYS.has(key)) continue;
    out[key] = isPlainObject(out[key]) && isPlainObject(value) ? deepMerge(out[key], value) : value;
  }
  return out as T;
}

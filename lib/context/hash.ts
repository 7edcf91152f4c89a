/** A short, deterministic hash for keys that must match across processes (turn keys, fingerprints). */

/** FNV-1a over a string, 32-bit, as 8 hex chars. Deterministic across processes. */
export function fnv1a(text: string, seed = 0x811c9dc5): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

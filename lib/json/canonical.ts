/**
 * Canonical JSON: one spelling for equal values, so two spellings of the same tool arguments compare
 * equal (prune's repeated-call detection, the policies plugin's repeated-call answers).
 */

/** Arguments nested deeper than this have no canonical form. */
const MAX_JSON_DEPTH = 64;

function canonical(value: unknown, depth: number): string | undefined {
  if (depth > MAX_JSON_DEPTH) return undefined;
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return undefined;
    case "object":
      break;
    default:
      return "null"; // undefined, functions, symbols: as JSON writes them in an array
  }
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const part = canonical(item, depth + 1);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(",")}]`;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue; // JSON leaves these keys out
    const part = canonical(v, depth + 1);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * JSON of `value` with object keys sorted at every level, so two spellings of the same arguments
 * compare equal. Undefined for what JSON cannot hold as a value (bigint, nesting deeper than 64).
 */
export function canonicalJson(value: unknown): string | undefined {
  return canonical(value, 0);
}

/**
 * A one-line outline of a JSON document: its keys and array lengths, a few levels deep, e.g.
 * `{query, scopes: [1], results: {code: [100 × {path, matches: [2]}]}, counts: {total, code}}`.
 * Put next to a head/tail excerpt it tells the model what the omitted middle holds.
 */
import { utf8Bytes } from "../../lib/size/index.ts";

/** Outline options. */
export interface OutlineOptions {
  /** Longest outline, in characters. Depth is reduced until it fits, then it is cut. Default 480. */
  maxChars?: number;
  /** Documents larger than this (UTF-8 bytes) are not parsed. Default 8 MiB. */
  maxParseBytes?: number;
  /** Keys shown per object before `+N more`. Default 12. */
  maxKeys?: number;
}

/** `JSON outline: …` for text that parses as a JSON object or array; undefined otherwise. */
export function jsonOutline(text: string, options: OutlineOptions = {}): string | undefined {
  const maxChars = options.maxChars ?? 480;
  const maxParse = options.maxParseBytes ?? 8 * 1024 * 1024;
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  // text.length (UTF-16 units) is a lower bound of the byte size: a cheap test before parsing.
  if (text.length > maxParse || utf8Bytes(text) > maxParse) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const maxKeys = options.maxKeys ?? 12;
  for (let depth = 4; depth >= 0; depth--) {
    const line = `JSON outline (full answer): ${describe(value, depth, maxKeys)}`;
    if (line.length <= maxChars) return line;
  }
  return `${`JSON outline (full answer): ${describe(value, 0, maxKeys)}`.slice(0, Math.max(0, maxChars - 1))}…`;
}

function describe(value: unknown, depth: number, maxKeys: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[0]";
    const firstItem = value[0];
    // An array's items sit at the array's own depth: `[300 × {path, matches}]` reads as one level.
    // (Nested arrays still consume depth, so the recursion is bounded by `depth`.)
    if (depth > 0 && isContainer(firstItem)) return `[${value.length} × ${describe(firstItem, Array.isArray(firstItem) ? depth - 1 : depth, maxKeys)}]`;
    return `[${value.length}${isContainer(firstItem) ? "" : ` × ${typeOf(firstItem)}`}]`;
  }
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    if (depth <= 0) return keys.length ? `{${keys.length} keys}` : "{}";
    const shown = keys.slice(0, maxKeys).map((k) => {
      const v = (value as Record<string, unknown>)[k];
      return isContainer(v) ? `${k}: ${describe(v, depth - 1, maxKeys)}` : k;
    });
    if (keys.length > maxKeys) shown.push(`+${keys.length - maxKeys} more`);
    return `{${shown.join(", ")}}`;
  }
  return typeOf(value);
}

function isContainer(value: unknown): boolean {
  return value !== null && typeof value === "object";
}

function typeOf(value: unknown): string {
  return value === null ? "null" : typeof value;
}

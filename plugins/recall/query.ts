/**
 * Turns what a user or the model typed into a safe FTS5 MATCH expression. Every term becomes a quoted
 * phrase (FTS5 operators and column filters in the input are plain text, never syntax); a camelCase
 * term also matches its split words. Terms are joined with AND, or OR for the fallback pass.
 */
import { splitIdentifier } from "./identifiers.ts";

/** Most terms used from one query. */
export const MAX_QUERY_TERMS = 16;
/** Longest term, in characters. */
const MAX_TERM_CHARS = 100;

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The query's terms: whitespace-separated, without characters no tokenizer keeps, bounded. */
export function queryTerms(query: string): string[] {
  return query
    .split(/\s+/)
    .map((t) => t.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, "").slice(0, MAX_TERM_CHARS))
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, MAX_QUERY_TERMS);
}

/** One term as an FTS5 expression: `"BlobStore"` or `("blobStore" OR "blob Store")`. */
function termExpression(term: string, trigram: boolean): string {
  if (trigram) return quote(term);
  const parts = /^[A-Za-z0-9]+$/.test(term) ? splitIdentifier(term) : [term];
  return parts.length > 1 ? `(${quote(term)} OR ${quote(parts.join(" "))})` : quote(term);
}

/**
 * The MATCH expression for `query`, or undefined when it has no searchable term. `mode` "all"
 * requires every term, "any" one of them. `trigram`: the index uses the trigram tokenizer (no split).
 */
export function matchExpression(query: string, mode: "all" | "any", trigram = false): string | undefined {
  const terms = queryTerms(query);
  if (!terms.length) return undefined;
  return terms.map((t) => termExpression(t, trigram)).join(mode === "all" ? " AND " : " OR ");
}

/**
 * Identifier splitting for the recall index. SQLite's unicode61 tokenizer already splits on `_`, `.`,
 * `/` and `-` (snake_case, a.b.c and paths are found by any part), but keeps `camelCase`, `HTTPServer`
 * and `sha256` whole. The index therefore carries a second column with those identifiers split into
 * words, so `Store` finds `BlobStore` while a search for the whole identifier still ranks it first.
 */

/** Words of one identifier: `parseHTTPResponse2` -> parse, HTTP, Response, 2. */
const PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g;
/** Identifier-like runs of letters and digits. */
const RUN = /[A-Za-z][A-Za-z0-9]*/g;

/** The parts of `identifier` (one element when it does not split). */
export function splitIdentifier(identifier: string): string[] {
  return identifier.match(PART) ?? [identifier];
}

/**
 * The split words of every compound identifier in `text` (each compound once), space separated.
 * Plain words and snake_case pieces are left out: the body column already has them.
 */
export function identifierWords(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const run of text.match(RUN) ?? []) {
    if (run.length < 3 || seen.has(run)) continue;
    seen.add(run);
    const parts = splitIdentifier(run);
    if (parts.length > 1) out.push(parts.join(" "));
  }
  return out.join("\n");
}

import { InvalidInputError } from "../../core/index.ts";

/** A blob id is the lowercase hex sha256 of the stored bytes: exactly 64 characters of [0-9a-f]. */
export const BLOB_ID_PATTERN = /^[0-9a-f]{64}$/;

/** Blob files are `<id>.txt`, or `<id>.json` when the bytes look like a JSON document. */
export const BLOB_FILE_PATTERN = /^([0-9a-f]{64})\.(txt|json)$/;

/** Prefix of in-flight temporary files. Never listed, never read, removed by retention when stale. */
export const TEMP_PREFIX = ".tmp-";

/** True when `value` is a well-formed blob id. */
export function isBlobId(value: unknown): value is string {
  return typeof value === "string" && BLOB_ID_PATTERN.test(value);
}

/**
 * Throws an {@link InvalidInputError} unless `value` is a well-formed blob id. The check is the
 * whole defence against path tricks (`../`, absolute paths, NUL): only 64 hex digits reach `join`.
 */
export function assertBlobId(value: unknown): string {
  if (isBlobId(value)) return value;
  const shown = typeof value === "string" ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : typeof value;
  throw new InvalidInputError(`invalid blob id ${shown}: a blob id is 64 lowercase hex characters (a sha256)`, {
    agentMessage: "Pass the blobId exactly as the [blob …] marker or the result details show it.",
  });
}

/** A short form for humans: the first 12 hex digits and an ellipsis. */
export function shortId(id: string): string {
  return `${id.slice(0, 12)}…`;
}

/** Hex digits of a blob id that texts sent to the model show (48 bits: a clash in one cache is vanishingly rare). */
export const BLOB_PREFIX_HEX = 12;
/** The fewest hex digits `BlobStore.resolve` accepts as a prefix. */
export const MIN_BLOB_PREFIX_HEX = 8;
const PREFIX_PATTERN = /^[0-9a-f]+$/;

/**
 * The id as texts for the model name it: the first {@link BLOB_PREFIX_HEX} hex digits of a blob id
 * (`BlobStore.resolve` finds the blob from them). Anything that is not a blob id is returned as is.
 */
export function blobIdPrefix(id: string): string {
  return isBlobId(id) ? id.slice(0, BLOB_PREFIX_HEX) : id;
}

/**
 * `value` as a lowercase blob id or id prefix: {@link MIN_BLOB_PREFIX_HEX} to 64 hex digits,
 * surrounding spaces ignored. Throws an {@link InvalidInputError} for anything else (too short,
 * too long, not hex, a path): only hex digits ever reach a file name.
 */
export function assertBlobIdPrefix(value: unknown): string {
  const text = typeof value === "string" && value.length <= 200 ? value.trim().toLowerCase() : undefined;
  if (text !== undefined && text.length >= MIN_BLOB_PREFIX_HEX && text.length <= 64 && PREFIX_PATTERN.test(text)) return text;
  const shown = typeof value === "string" ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : typeof value;
  throw new InvalidInputError(`invalid blob id ${shown}: a blob id is 64 hex characters (a sha256); its first ${MIN_BLOB_PREFIX_HEX} or more are enough`, {
    agentMessage: "Pass the blobId exactly as the placeholder, the [blob …] marker or the result details show it.",
  });
}

/**
 * Whether text looks like one JSON document (first and last non-space characters are a matching
 * `{}` or `[]`). Decides the file extension only, so it must be a pure function of the content:
 * identical content always lands under the same name.
 */
export function looksLikeJson(head: string, tail: string): boolean {
  // ASCII whitespace only, so a string and its UTF-8 bytes (read as latin1) always agree.
  const first = head.replace(/^[ \t\r\n]+/, "")[0];
  // A trailing-whitespace regex is quadratic in a long run of spaces; tail is at most 64 characters.
  const last = tail.replace(/[ \t\r\n]+$/, "").slice(-1);
  return (first === "{" && last === "}") || (first === "[" && last === "]");
}

/** File extension for content whose first and last characters are `head` and `tail`. */
export function extensionFor(head: string, tail: string): ".json" | ".txt" {
  return looksLikeJson(head, tail) ? ".json" : ".txt";
}

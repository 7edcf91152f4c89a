import { blobIdPrefix } from "../../lib/blobs/index.ts";

/** Name of the rehydration tool the marker points to. */
export const BLOB_READ_TOOL = "blob_read";

/**
 * Matches a blob marker and captures the blob id as the marker names it (group 1: the first
 * 12 hex digits of the id, which `blob_read` accepts).
 */
export const BLOB_MARKER_PATTERN = /\[blob: [\d,]+ bytes stored; blob_read\(\{"blobId":"([0-9a-f]{8,64})"\}\)/;

/**
 * `blob_read({"blobId":"<first 12 hex digits>", ...extra})`: the call that reads blob `id` back, as
 * placeholders, fold messages and search hits name it. The prefix is enough (`BlobStore.resolve`);
 * how to page or grep is said once, in blob_read's description, not in every text that names a blob.
 */
export function blobReadCall(id: string, extra: Record<string, unknown> = {}): string {
  return `${BLOB_READ_TOOL}(${JSON.stringify({ blobId: blobIdPrefix(id), ...extra })})`;
}

/** `204800` -> `204,800`. */
export function formatBytes(bytes: number): string {
  return bytes.toLocaleString("en-US");
}

/**
 * The first line of every excerpt: the stored size and the call that reads the blob back, by its
 * short id (about 70 bytes: it stays in the context with the excerpt, and survives pi's compaction,
 * which keeps roughly the first 2,000 characters of old tool results).
 */
export function blobMarker(id: string, originalBytes: number): string {
  return `[blob: ${formatBytes(originalBytes)} bytes stored; ${blobReadCall(id)} for more]`;
}

/** The first line when the full output could not be stored: the excerpt is all there is. */
export function unstoredMarker(originalBytes: number, reason: string): string {
  return `[output cut from ${formatBytes(originalBytes)} bytes; the full output could not be stored (${reason}). Re-run the call narrower to see the rest]`;
}

/**
 * The content-addressed blob store: full tool outputs kept on disk under their sha256, read back in
 * bounded pages. Used by the blobs plugin; importable by any plugin that wants the same cache.
 */
export { BLOB_ID_PATTERN, BLOB_PREFIX_HEX, MIN_BLOB_PREFIX_HEX, assertBlobId, assertBlobIdPrefix, blobIdPrefix, isBlobId, shortId } from "./blob-id.ts";
export { cacheRoot, DEFAULT_BLOB_DIR, isInsideDir, resolveBlobDir } from "./paths.ts";
export { BlobDirError, checkBlobDir, checkPrivateDir, type BlobDirState, type PrivateDirLabel } from "./cache-dir.ts";
export { openPrivateFile } from "./open-blob.ts";
export { WRITE_CHUNK_CHARS, type WrittenBlob } from "./atomic-write.ts";
export { readBytePage, readRange, type BytePage } from "./read-bytes.ts";
export { cutUtf8 } from "./read-lines.ts";
export { openBlobFile } from "./open-blob.ts";
export { grepBlob, readLinePage, type GrepMatch, type GrepResult, type LinePage } from "./read-pages.ts";
export { listBlobs, purgeBlobs, sweepBlobs, type BlobEntry, type RetentionPolicy, type SweepReport } from "./retention.ts";
export { RetentionSchedule } from "./retention-schedule.ts";
export {
  BlobStore,
  DEFAULT_BLOB_MAX_AGE_DAYS,
  DEFAULT_BLOB_MAX_BYTES,
  DEFAULT_TEMP_GRACE_MS,
  type BlobStoreOptions,
  type PreparedBlob,
  type TextRedactor,
} from "./store.ts";

import { lstat, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { BLOB_FILE_PATTERN, TEMP_PREFIX } from "./blob-id.ts";

/** One stored blob as the directory shows it. */
export interface BlobEntry {
  id: string;
  /** Absolute path of the blob file. */
  path: string;
  /** Size in bytes. */
  bytes: number;
  /** Last modification (written, or re-stored as a duplicate), epoch milliseconds. */
  mtimeMs: number;
}

/** Retention limits. */
export interface RetentionPolicy {
  /** Total size the cache may keep, in bytes. Oldest blobs go first. */
  maxBytes: number;
  /** Blobs older than this are removed, in milliseconds. */
  maxAgeMs: number;
  /** Ids that are never removed (blobs the current session points to). */
  keep: ReadonlySet<string>;
  /** Current time, epoch milliseconds. */
  now: number;
  /** Temporary files older than this are crash leftovers and are removed, in milliseconds. */
  tempGraceMs: number;
}

/** What a sweep did. */
export interface SweepReport {
  removed: number;
  freedBytes: number;
  /** Crash leftovers (`.tmp-*`) removed. */
  tempRemoved: number;
  /** Blobs and bytes left. */
  remaining: number;
  remainingBytes: number;
}

/**
 * Every complete blob in `dir` (names `<sha256>.txt|.json` only: temporary files are never listed),
 * newest first. A missing directory is an empty cache. lstat: a link under a blob's name is not listed.
 */
export async function listBlobs(dir: string): Promise<BlobEntry[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  const entries: BlobEntry[] = [];
  for (const name of names) {
    const m = BLOB_FILE_PATTERN.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    const s = await lstat(path).catch(() => undefined);
    if (s?.isFile()) entries.push({ id: m[1]!, path, bytes: s.size, mtimeMs: s.mtimeMs });
  }
  return entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/**
 * Applies retention: removes stale temporary files, blobs older than `maxAgeMs`, then the oldest
 * blobs until the total fits `maxBytes`; ids in `keep` are never removed (even if that leaves the
 * cache over its limit). Removal failures are skipped: another process may have removed it first.
 */
export async function sweepBlobs(dir: string, policy: RetentionPolicy): Promise<SweepReport> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let tempRemoved = 0;
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    const s = await lstat(path).catch(() => undefined);
    if (s && policy.now - s.mtimeMs > policy.tempGraceMs && (await removed(path))) tempRemoved++;
  }

  const entries = await listBlobs(dir);
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  let count = entries.length;
  let freedBytes = 0;
  let removedCount = 0;
  // Oldest first: age limit, then size limit.
  for (const e of [...entries].reverse()) {
    if (policy.keep.has(e.id)) continue;
    const tooOld = policy.now - e.mtimeMs > policy.maxAgeMs;
    if (!tooOld && total <= policy.maxBytes) continue;
    if (await removed(e.path)) {
      total -= e.bytes;
      count--;
      freedBytes += e.bytes;
      removedCount++;
    }
  }
  return { removed: removedCount, freedBytes, tempRemoved, remaining: count, remainingBytes: total };
}

/** Removes every blob and temporary file in `dir` (the user's purge). */
export async function purgeBlobs(dir: string): Promise<{ removed: number; freedBytes: number }> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removedCount = 0;
  let freedBytes = 0;
  for (const name of names) {
    if (!BLOB_FILE_PATTERN.test(name) && !name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    const s = await lstat(path).catch(() => undefined);
    if (s?.isFile() && (await removed(path))) {
      if (BLOB_FILE_PATTERN.test(name)) removedCount++;
      freedBytes += s.size;
    }
  }
  return { removed: removedCount, freedBytes };
}

async function removed(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch {
    return false;
  }
}

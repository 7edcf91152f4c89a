import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, lutimes, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { extensionFor, TEMP_PREFIX } from "./blob-id.ts";
import { BLOB_READ_FLAGS, currentUid } from "./open-blob.ts";

/**
 * Flags of a new temporary file: created here or failing (O_EXCL never opens an existing name, a
 * planted link included), and never through a link (O_NOFOLLOW, for systems where O_EXCL alone does not
 * guarantee it). Written 0600, then renamed into place: rename replaces a planted name, it never writes
 * through it.
 */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Characters encoded per chunk when writing a string: 1 Mi characters (at most 3 MiB of UTF-8).
 * Chunking keeps the write streaming: a 100 MB string is never copied into one 100 MB Buffer.
 */
export const WRITE_CHUNK_CHARS = 1 << 20;

/** What {@link writeBlobAtomically} stored. */
export interface WrittenBlob {
  /** sha256 of the bytes, lowercase hex. */
  id: string;
  /** Absolute path of the final file. */
  path: string;
  /** Size in bytes. */
  bytes: number;
  /** False when identical content was already stored (the existing file was kept and touched). */
  created: boolean;
}

/**
 * Writes `data` (a string is stored as UTF-8; `{ file }` copies another file's bytes) under its
 * sha256 in `dir`:
 * a private temporary file in the same directory (mode 0600, `wx`), hashed while written, fsynced,
 * then renamed to `<sha256>.txt|.json`. A crash before the rename leaves only a `.tmp-*` file, which
 * is never listed or read and is removed by retention; a name that exists is always complete.
 * Parallel writers of the same content each write their own temp file; the rename is atomic and the
 * bytes are identical, so whichever lands last changes nothing.
 */
export async function writeBlobAtomically(dir: string, data: string | Uint8Array | { file: string }): Promise<WrittenBlob> {
  const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString("hex")}`);
  const hash = createHash("sha256");
  let bytes = 0;
  const handle = await open(temp, TEMP_FLAGS, 0o600);
  let renamed = false;
  try {
    const writeAll = async (buf: Uint8Array) => {
      hash.update(buf);
      let done = 0;
      while (done < buf.byteLength) {
        const { bytesWritten } = await handle.write(buf, done, buf.byteLength - done);
        done += bytesWritten;
      }
      bytes += buf.byteLength;
    };
    let ends: { head: string; tail: string } | undefined;
    if (typeof data === "string") await writeString(data, writeAll);
    else if (data instanceof Uint8Array) await writeAll(data);
    else ends = await copyFile(data.file, writeAll);
    await handle.sync();
    await handle.close();

    const id = hash.digest("hex");
    const [head, tail] =
      typeof data === "string"
        ? [data.slice(0, 64), data.slice(-64)]
        : data instanceof Uint8Array
          ? [Buffer.from(data.subarray(0, 64)).toString("latin1"), Buffer.from(data.subarray(-64)).toString("latin1")]
          : [ends!.head, ends!.tail];
    const path = join(dir, `${id}${extensionFor(head, tail)}`);
    const existing = await lstat(path).catch(() => undefined);
    const uid = currentUid();
    // Identical content is stored once: keep the existing file and refresh its age for retention.
    // If another process's retention removed it meanwhile, lutimes fails and the rename below stores it.
    // Only a regular file of ours counts: a planted link or foreign file under the name is replaced.
    if (existing?.isFile() && existing.size === bytes && (uid === undefined || existing.uid === uid) && (await touch(path))) {
      await unlink(temp).catch(() => {});
      renamed = true;
      return { id, path, bytes, created: false };
    }
    await rename(temp, path);
    renamed = true;
    await syncDir(dir);
    return { id, path, bytes, created: true };
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await unlink(temp).catch(() => {});
    }
  }
}

/**
 * Writes a string in chunks through one scratch buffer, reused for every chunk (a UTF-16 unit never
 * needs more than 3 bytes), so the peak stays a few MiB above the string however large it is, with
 * no garbage per chunk.
 */
async function writeString(data: string, writeAll: (buf: Uint8Array) => Promise<void>): Promise<void> {
  const scratch = Buffer.allocUnsafe(Math.min(data.length, WRITE_CHUNK_CHARS) * 3);
  for (let i = 0; i < data.length; ) {
    let end = Math.min(i + WRITE_CHUNK_CHARS, data.length);
    // Never split a surrogate pair across chunks: each half alone would encode as U+FFFD.
    const last = data.charCodeAt(end - 1);
    if (end < data.length && end - 1 > i && last >= 0xd800 && last <= 0xdbff) end--;
    const n = scratch.write(data.slice(i, end), "utf8");
    await writeAll(scratch.subarray(0, n));
    i = end;
  }
}

/**
 * Streams another file (pi's full bash output) through, 64 KiB at a time, opened like a blob (no
 * link, no FIFO that would block forever, a regular file only). Returns its first and last 64 bytes
 * as latin1 (what the extension is chosen by).
 */
async function copyFile(file: string, writeAll: (buf: Uint8Array) => Promise<void>): Promise<{ head: string; tail: string }> {
  let headBytes = Buffer.alloc(0);
  let tailBytes = Buffer.alloc(0);
  let bytes = 0;
  const source = await open(file, BLOB_READ_FLAGS);
  try {
    if (!(await source.stat()).isFile()) throw new Error(`${file} is not a regular file; not stored`);
  } catch (error) {
    await source.close();
    throw error;
  }
  for await (const chunk of source.createReadStream({ highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
    if (bytes < 64) headBytes = Buffer.concat([headBytes, chunk.subarray(0, 64 - bytes)]);
    tailBytes = Buffer.concat([tailBytes, chunk]).subarray(-64);
    await writeAll(chunk);
    bytes += chunk.byteLength;
  }
  return { head: headBytes.toString("latin1"), tail: tailBytes.toString("latin1") };
}

/** Sets a file's times to now, never through a link; false when it is gone. */
async function touch(path: string): Promise<boolean> {
  const now = new Date();
  try {
    await lutimes(path, now, now);
    return true;
  } catch {
    return false;
  }
}

/** fsync of the directory makes the rename itself durable; best effort (not every FS supports it). */
async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

import { createHash, randomBytes } from "node:crypto";
import { open, rename, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { extensionFor, TEMP_PREFIX } from "./blob-id.ts";

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
 * Writes `data` (a string is stored as UTF-8) under its sha256 in `dir`:
 * a private temporary file in the same directory (mode 0600, `wx`), hashed while written, fsynced,
 * then renamed to `<sha256>.txt|.json`. A crash before the rename leaves only a `.tmp-*` file, which
 * is never listed or read and is removed by retention; a name that exists is always complete.
 * Parallel writers of the same content each write their own temp file; the rename is atomic and the
 * bytes are identical, so whichever lands last changes nothing.
 */
export async function writeBlobAtomically(dir: string, data: string | Uint8Array): Promise<WrittenBlob> {
  const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString("hex")}`);
  const hash = createHash("sha256");
  let bytes = 0;
  const handle = await open(temp, "wx", 0o600);
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
    if (typeof data === "string") {
      for (let i = 0; i < data.length; ) {
        let end = Math.min(i + WRITE_CHUNK_CHARS, data.length);
        // Never split a surrogate pair across chunks: each half alone would encode as U+FFFD.
        const last = data.charCodeAt(end - 1);
        if (end < data.length && end - 1 > i && last >= 0xd800 && last <= 0xdbff) end--;
        await writeAll(Buffer.from(data.slice(i, end), "utf8"));
        i = end;
      }
    } else {
      await writeAll(data);
    }
    await handle.sync();
    await handle.close();

    const id = hash.digest("hex");
    const [head, tail] = typeof data === "string" ? [data.slice(0, 64), data.slice(-64)] : [Buffer.from(data.subarray(0, 64)).toString("latin1"), Buffer.from(data.subarray(-64)).toString("latin1")];
    const path = join(dir, `${id}${extensionFor(head, tail)}`);
    const existing = await stat(path).catch(() => undefined);
    if (existing?.isFile() && existing.size === bytes) {
      // Identical content is stored once: keep the existing file, refresh its age for retention.
      await unlink(temp).catch(() => {});
      renamed = true;
      const now = new Date();
      await utimes(path, now, now).catch(() => {});
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

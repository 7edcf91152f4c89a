import { openBlobFile } from "./open-blob.ts";

/** One page of a blob read by byte offsets, cut on UTF-8 character boundaries. */
export interface BytePage {
  /** The page as text (whole characters only). */
  text: string;
  /** Byte offset the page starts at (moved back to a character start if the request fell inside one). */
  offset: number;
  /** Byte offset to pass for the next page; equals `totalBytes` at the end. */
  nextOffset: number;
  /** Size of the whole blob, in bytes. */
  totalBytes: number;
}

/** True for a UTF-8 continuation byte (10xxxxxx): never the first byte of a character. */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Reads exactly `[offset, offset + length)` of a blob file (clipped to its end) as raw bytes; opened as in {@link openBlobFile}. */
export async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await openBlobFile(path);
  try {
    const size = (await handle.stat()).size;
    const start = Math.max(0, Math.min(offset, size));
    const len = Math.max(0, Math.min(length, size - start));
    const buf = Buffer.alloc(len);
    let done = 0;
    while (done < len) {
      const { bytesRead } = await handle.read(buf, done, len - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === len ? buf : buf.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/**
 * Reads about `limit` bytes from byte `offset` as text. Both ends are snapped to UTF-8 character
 * boundaries (the end backwards, so a page never exceeds `limit` unless one character is longer than
 * it), so pages read with `nextOffset` concatenate to exactly the stored text. Only the page and at
 * most 4 extra bytes are read: memory stays bounded for any blob size.
 */
export async function readBytePage(path: string, offset: number, limit: number): Promise<BytePage> {
  const handle = await openBlobFile(path);
  try {
    const totalBytes = (await handle.stat()).size;
    let start = Math.max(0, Math.min(Math.floor(offset), totalBytes));
    const want = Math.max(1, Math.floor(limit));
    // Read 3 bytes before (to snap the start back) and 4 after (to see where the next character starts).
    const from = Math.max(0, start - 3);
    const to = Math.min(totalBytes, start + want + 4);
    const buf = Buffer.alloc(to - from);
    let done = 0;
    while (done < buf.length) {
      const { bytesRead } = await handle.read(buf, done, buf.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    const at = (pos: number) => buf[pos - from];
    while (start > from && isContinuation(at(start))) start--;
    let end = Math.min(totalBytes, start + want);
    while (end > start && end < totalBytes && isContinuation(at(end))) end--;
    if (end === start && start < totalBytes) {
      // The limit is smaller than one character: return that whole character so paging progresses.
      end = start + 1;
      while (end < to && isContinuation(at(end))) end++;
    }
    return { text: buf.subarray(start - from, end - from).toString("utf8"), offset: start, nextOffset: end, totalBytes };
  } finally {
    await handle.close();
  }
}

import { openBlobFile } from "./open-blob.ts";

/** One line of a blob as {@link scanLines} yields it. */
export interface ScannedLine {
  /** 1-based line number. Lines are what `text.split("\n")` gives: a final newline ends in an empty line. */
  line: number;
  /** Byte offset of the line's first byte. */
  byteOffset: number;
  /** The line's bytes without the "\n", at most `maxLineBytes` of them. */
  bytes: Buffer;
  /** Full length of the line in bytes (larger than `bytes.length` when it was capped). */
  lineBytes: number;
}

/**
 * Streams a file's lines from line `fromLine` (1-based) on, keeping at most `maxLineBytes` of each
 * line in memory (default 1 MiB), so a 100 MB single-line JSON blob never lands in memory whole.
 * Lines before `fromLine` are counted, not kept. Stop early by breaking out of the loop. The file is
 * opened as in {@link openBlobFile} (no links, regular files of the user only); an aborted `signal`
 * stops the scan between 64 KiB chunks with the signal's reason.
 */
export async function* scanLines(path: string, fromLine = 1, maxLineBytes = 1 << 20, signal?: AbortSignal): AsyncGenerator<ScannedLine> {
  signal?.throwIfAborted();
  const handle = await openBlobFile(path);
  const stream = handle.createReadStream({ highWaterMark: 1 << 16, autoClose: false });
  let line = 1;
  let lineStart = 0;
  let position = 0;
  let parts: Buffer[] = [];
  let kept = 0;
  const take = (chunk: Buffer) => {
    if (line < fromLine || kept >= maxLineBytes) return;
    const piece = chunk.subarray(0, maxLineBytes - kept);
    parts.push(piece);
    kept += piece.length;
  };
  const finish = (endOffset: number): ScannedLine => {
    const out = { line, byteOffset: lineStart, bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts), lineBytes: endOffset - lineStart };
    parts = [];
    kept = 0;
    return out;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      let pos = 0;
      while (pos < chunk.length) {
        const nl = chunk.indexOf(0x0a, pos);
        if (nl < 0) {
          take(chunk.subarray(pos));
          break;
        }
        take(chunk.subarray(pos, nl));
        const done = finish(position + nl);
        if (line >= fromLine) yield done;
        line++;
        lineStart = position + nl + 1;
        pos = nl + 1;
      }
      position += chunk.length;
    }
    const last = finish(position);
    if (line >= fromLine) yield last;
  } finally {
    stream.destroy();
    await handle.close().catch(() => {});
  }
}

/** Cuts `buf` to at most `max` bytes without splitting a UTF-8 character. */
export function cutUtf8(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = Math.max(0, max);
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/**
 * Reading a session file as untrusted input: a folder given to replay may come with a repository, and
 * a path may name a FIFO, a device or a file of any size. The file is opened non-blocking, its kind
 * and size are checked on the opened descriptor (fstat) before a byte is read, and it is read in
 * chunks of {@link READ_CHUNK_BYTES}, one line at a time, never more than the size limit in all: the
 * text is never held whole beside what is parsed from it.
 */
import { closeSync, readSync } from "node:fs";
import { openCheckedFileSync, UnsafeFileError } from "../../lib/safe-file/index.ts";

/** Largest session file replayed by default, in bytes (256 MiB); `--max-file-mb` raises it. */
export const DEFAULT_MAX_SESSION_BYTES = 256 * 1024 * 1024;
/** Bounds of `--max-file-mb`, in MiB. */
export const MAX_FILE_MB = { min: 1, max: 4096 } as const;
/** Bytes read at a time. */
export const READ_CHUNK_BYTES = 1024 * 1024;
/** Bytes looked at to tell a binary file from a session (JSONL text). */
const SNIFF_BYTES = 64 * 1024;

/** How a session file is read. */
export interface SessionReadOptions {
  /** Largest size accepted, in bytes; default {@link DEFAULT_MAX_SESSION_BYTES}. */
  maxBytes?: number;
  /**
   * Follow a symbolic link at the path (default true: a path the user typed). False for files found
   * in a folder: a link there is refused, so a file swapped for a link after the listing is too.
   */
  followLinks?: boolean;
  /** Bytes per read; default {@link READ_CHUNK_BYTES} (tests use small chunks). */
  chunkBytes?: number;
}

/**
 * Why `bytes` (the start of a file) is not text a session file can hold (a NUL byte, or invalid UTF-8
 * in the first 64 KiB), or undefined when it is text. `more`: the file goes on after `bytes`.
 */
export function binaryReason(bytes: Uint8Array, more = false): string | undefined {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return "it contains NUL bytes";
  try {
    // A cut multi-byte character at the end of the window is fine: stream mode leaves it pending.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: more || head.length < bytes.length });
  } catch {
    return "it is not UTF-8 text";
  }
  return undefined;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** The error a refused file gives: what it is and what to pass instead. */
function refused(path: string, why: string): Error {
  return new Error(`${path}${why.startsWith("it ") ? ": " : " "}${why}`);
}

/**
 * The lines of the session file at `path`, in order, without their line ends. Throws an Error whose
 * message names the path and the reason (missing, a link in a folder, not a regular file, larger than
 * the limit, binary) before anything of such a file is returned.
 */
export function* sessionLines(path: string, options: SessionReadOptions = {}): Generator<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SESSION_BYTES;
  let opened: { fd: number; size: number } | null;
  try {
    // The size is checked below, with the option that raises it named.
    opened = openCheckedFileSync(path, { maxBytes: Number.POSITIVE_INFINITY, followLinks: options.followLinks !== false });
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw refused(path, `cannot be read: ${(error as Error).message}`);
    const link = /symbolic link/.test(error.reason)
      ? ": replay reads no link it finds in a folder; pass the file it points to"
      : ": pass a session .jsonl file";
    throw refused(path, `${error.reason}${link}`);
  }
  if (!opened) throw refused(path, "does not exist (no such file)");
  const { fd, size } = opened;
  try {
    const tooLarge = (what: string) =>
      refused(
        path,
        `is larger than ${mib(maxBytes)} (${what}): a pi session is rarely that large; to replay it anyway pass --max-file-mb ${Math.min(MAX_FILE_MB.max, Math.ceil(size / 1024 / 1024) + 1)}`,
      );
    if (size > maxBytes) throw tooLarge(`${size.toLocaleString("en-US")} bytes`);
    const chunk = Buffer.alloc(Math.max(1, Math.min(options.chunkBytes ?? READ_CHUNK_BYTES, maxBytes + 1)));
    const decoder = new TextDecoder("utf-8");
    let total = 0;
    // The line read so far, in pieces: joined once its end arrives (a file without line ends costs
    // one join, not a copy per chunk).
    const partial: string[] = [];
    let sniff: Buffer | undefined = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      total += n;
      if (total > maxBytes) throw tooLarge("it grew while being read");
      let text: string;
      if (sniff) {
        // The first 64 KiB decide whether this is text at all, before any line is returned.
        sniff = Buffer.concat([sniff, chunk.subarray(0, n)]);
        if (sniff.length < SNIFF_BYTES && n > 0) continue;
        const binary = binaryReason(sniff, n > 0);
        if (binary) throw refused(path, `is not a pi session file (${binary}): pass a session .jsonl file, e.g. from ~/.pi/agent/sessions`);
        text = decoder.decode(sniff, { stream: n > 0 });
        sniff = undefined;
      } else {
        text = decoder.decode(chunk.subarray(0, n), { stream: n > 0 });
      }
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        partial.push(text.slice(start, end));
        yield partial.join("");
        partial.length = 0;
        start = end + 1;
      }
      if (start < text.length) partial.push(text.slice(start));
      if (n === 0) break;
    }
    if (partial.length) yield partial.join("");
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the file pi wrote a tool's whole output to when it cut the output for the model
 * (`details.fullOutputPath`: pi's bash beyond 50 KB, pi 1.x's MCP tools beyond 20 KB), so stages that
 * keep the full output (blobs, recall) keep that and not pi's cut.
 *
 * `details` is a tool result's JSON, so the path is untrusted: only a file directly inside pi's temp
 * dir (the OS temp dir pi writes these files to) is read, opened without following a link and
 * without blocking on a FIFO, and only when what was opened is a regular file of the current user
 * no larger than the bound (for the whole text; its two ends are read at any size). Anything else
 * is ignored (the caller keeps pi's cut text).
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";

/** Largest full-output file read, in bytes (64 MiB): above it the caller keeps pi's cut text. */
export const MAX_PI_FULL_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Read-only, never through a symbolic link, never blocking on a planted FIFO (0 where the OS lacks a flag). */
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Options of {@link readPiFullOutput}. */
export interface PiFullOutputOptions {
  /** Largest file read, in bytes. Default {@link MAX_PI_FULL_OUTPUT_BYTES}. */
  maxBytes?: number;
  /** pi's temp dir. Default `os.tmpdir()`, where pi writes these files. */
  tempDir?: string;
}

/** The path in `details.fullOutputPath` when it names a file directly inside pi's temp dir, else undefined. */
export function piFullOutputPath(details: Record<string, unknown> | undefined, tempDir: string = tmpdir()): string | undefined {
  const path = details?.fullOutputPath;
  if (typeof path !== "string" || path.length > 4_096 || !isAbsolute(path) || path.includes("\0")) return undefined;
  const resolved = resolve(path);
  return dirname(resolved) === resolve(tempDir) ? resolved : undefined;
}

/** An opened file pi saved a full output to: what was checked, and its size in bytes. */
type OpenedFullOutput = { handle: FileHandle; size: number };

/** Opens the file `details` names when it is one to trust (see the module comment), else undefined. Never throws. */
async function openPiFullOutput(details: Record<string, unknown> | undefined, tempDir: string | undefined): Promise<OpenedFullOutput | undefined> {
  const path = piFullOutputPath(details, tempDir);
  if (!path) return undefined;
  const handle = await open(path, FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const s = await handle.stat();
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (s.isFile() && (uid === undefined || s.uid === uid)) return { handle, size: s.size };
  } catch {
    // unreadable: as if absent
  }
  await handle.close().catch(() => {});
  return undefined;
}

/**
 * The whole output pi saved for a tool result (UTF-8 text), or undefined when `details` names no
 * such file or it is not one to trust (see the module comment). Never throws.
 */
export async function readPiFullOutput(details: Record<string, unknown> | undefined, options: PiFullOutputOptions = {}): Promise<string | undefined> {
  const opened = await openPiFullOutput(details, options.tempDir);
  if (!opened) return undefined;
  const maxBytes = options.maxBytes ?? MAX_PI_FULL_OUTPUT_BYTES;
  try {
    if (opened.size > maxBytes) return undefined;
    const bytes = await opened.handle.readFile();
    // A file that grew past the bound between stat and read is not taken either.
    return bytes.length > maxBytes ? undefined : bytes.toString("utf8");
  } catch {
    return undefined;
  } finally {
    await opened.handle.close().catch(() => {});
  }
}

/** The two ends of a full output (see {@link readPiFullOutputEnds}). */
export interface PiFullOutputEnds {
  /** The output's first bytes, as text (a character cut at the window's end is left out). */
  head: string;
  /** The output's last bytes, as text (a character cut at the window's start is left out). */
  tail: string;
  /** True when head and tail are the same, whole output. */
  whole: boolean;
}

/**
 * The first and last `bytes` bytes of the output pi saved for a tool result, whatever its size (two
 * bounded reads), or undefined when `details` names no file to trust. For checking what pi's cut
 * left of it (a head, a tail, or both). Never throws.
 */
export async function readPiFullOutputEnds(
  details: Record<string, unknown> | undefined,
  bytes: number,
  options: Pick<PiFullOutputOptions, "tempDir"> = {},
): Promise<PiFullOutputEnds | undefined> {
  const opened = await openPiFullOutput(details, options.tempDir);
  if (!opened) return undefined;
  const { handle, size } = opened;
  try {
    if (size <= 2 * bytes) {
      const text = (await readAt(handle, 0, size)).toString("utf8");
      return { head: text, tail: text, whole: true };
    }
    const head = await readAt(handle, 0, bytes);
    const tail = await readAt(handle, size - bytes, bytes);
    // Cut at character boundaries: a partial sequence at the head's end is held back by the decoder,
    // continuation bytes at the tail's start are skipped.
    let from = 0;
    while (from < tail.length && (tail[from]! & 0xc0) === 0x80) from++;
    return { head: new TextDecoder().decode(head, { stream: true }), tail: tail.subarray(from).toString("utf8"), whole: false };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/** `length` bytes of the file from `position` (fewer at its end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

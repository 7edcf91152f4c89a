/**
 * Reads the file pi wrote a tool's whole output to when it cut the output for the model
 * (`details.fullOutputPath`: pi's bash beyond 50 KB, pi 1.x's MCP tools beyond 20 KB), so stages that
 * keep the full output (blobs, recall) keep that and not pi's cut.
 *
 * `details` is a tool result's JSON, so the path is untrusted: only a file directly inside pi's temp
 * dir (the OS temp dir pi writes these files to) is read, opened without following a link and
 * without blocking on a FIFO, and only when what was opened is a regular file of the current user
 * no larger than the bound. Anything else is ignored (the caller keeps pi's cut text).
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
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

/**
 * The whole output pi saved for a tool result (UTF-8 text), or undefined when `details` names no
 * such file or it is not one to trust (see the module comment). Never throws.
 */
export async function readPiFullOutput(details: Record<string, unknown> | undefined, options: PiFullOutputOptions = {}): Promise<string | undefined> {
  const path = piFullOutputPath(details, options.tempDir);
  if (!path) return undefined;
  const maxBytes = options.maxBytes ?? MAX_PI_FULL_OUTPUT_BYTES;
  const handle = await open(path, FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const s = await handle.stat();
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (!s.isFile() || s.size > maxBytes || (uid !== undefined && s.uid !== uid)) return undefined;
    const bytes = await handle.readFile();
    // A file that grew past the bound between stat and read is not taken either.
    return bytes.length > maxBytes ? undefined : bytes.toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

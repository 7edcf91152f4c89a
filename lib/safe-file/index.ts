/**
 * Reading a file someone else may have planted (a config file in a cloned repository, a blob in the
 * cache): never through a link that leads somewhere else, never a device or a FIFO (a link to
 * `/dev/zero` made pi read until it ran out of memory), never more than a size cap. The checks run on
 * what was opened (fstat of the descriptor), not on what the name pointed to a moment earlier.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { relative, isAbsolute, sep } from "node:path";

/**
 * Flags every untrusted read opens with: read-only, never through a symbolic link at the last
 * component (ELOOP), and non-blocking so a FIFO cannot hang the open (the fstat check then refuses
 * it). O_NOFOLLOW/O_NONBLOCK are 0 where the OS lacks them.
 */
export const SAFE_READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The current user's id, or undefined where the OS has none (Windows). */
export function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** A file that was refused: `reason` says what it is ("it is not a regular file (a FIFO)"). */
export class UnsafeFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${reason}`);
    this.name = "UnsafeFileError";
  }
}

/** Where a file must stay and how large it may be. */
export interface BoundedReadOptions {
  /** Largest size accepted, in bytes; a larger file is refused, and no more than this is ever read. */
  maxBytes: number;
  /**
   * A folder the file must lie in after every link is resolved (a project's root). Unset: links are
   * followed anywhere (the user's own files, e.g. a global config linked from a dotfiles folder).
   */
  within?: string;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function kindOf(stats: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isDirectory(): boolean }): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  if (stats.isDirectory()) return "a directory";
  return "not a plain file";
}

/**
 * The file's bytes, or null when it does not exist. Throws {@link UnsafeFileError} for a link out
 * of `within`, anything but a regular file (device, FIFO, socket, directory), or a file larger than
 * `maxBytes`; other errors (EACCES) are thrown as they are. Reads at most `maxBytes + 1` bytes even
 * if the file grows while it is read.
 */
export function readBoundedFileSync(path: string, options: BoundedReadOptions): Buffer | null {
  let target = path;
  if (options.within !== undefined) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        // A dangling link is a planted link, not a missing file.
        try {
          if (lstatSync(path).isSymbolicLink()) throw new UnsafeFileError(path, "it is a symbolic link that leads nowhere");
        } catch (inner) {
          if (inner instanceof UnsafeFileError) throw inner;
        }
        return null;
      }
      throw error;
    }
    let root: string;
    try {
      root = realpathSync(options.within);
    } catch {
      root = options.within;
    }
    if (!isInside(root, real)) throw new UnsafeFileError(path, `it is a symbolic link to ${real}, outside the project (${root})`);
    target = real; // every link resolved: open that path, and refuse if a link appeared there since
  }
  // Without `within` the user's own file may be a link; what it opens is still checked.
  const opened = openCheckedFileSync(target, { maxBytes: options.maxBytes, followLinks: options.within === undefined }, path);
  if (!opened) return null;
  const { fd, size } = opened;
  try {
    const buffer = Buffer.alloc(Math.min(size, options.maxBytes) + 1);
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, done);
      if (n === 0) break;
      done += n;
    }
    if (done > options.maxBytes) throw new UnsafeFileError(path, `it is larger than ${formatCap(options.maxBytes)} (it grew while being read)`);
    return buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** How {@link openCheckedFileSync} opens a file. */
export interface CheckedOpenOptions {
  /** Largest size accepted, in bytes; a larger file is refused before a byte is read. */
  maxBytes: number;
  /** Follow a symbolic link at the last component (the user's own path); false refuses it (ELOOP). */
  followLinks: boolean;
}

/**
 * Opens `path` for reading a file of untrusted kind and size: non-blocking (a FIFO cannot hang the
 * open), a link at the last component refused unless `followLinks`, and on the opened descriptor
 * (fstat) anything but a regular file or a file over `maxBytes` refused with {@link UnsafeFileError}
 * (`shownAs` names it; default `path`). Returns the descriptor (the caller closes it) and the size,
 * or null when the file does not exist; other errors (EACCES) are thrown as they are.
 */
export function openCheckedFileSync(path: string, options: CheckedOpenOptions, shownAs: string = path): { fd: number; size: number } | null {
  const flags = options.followLinks ? SAFE_READ_FLAGS & ~(constants.O_NOFOLLOW ?? 0) : SAFE_READ_FLAGS;
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new UnsafeFileError(shownAs, "it is a symbolic link");
    // Linux refuses to open a socket (ENXIO) before any fstat could name it.
    if (code === "ENXIO") throw new UnsafeFileError(shownAs, "it is not a regular file (a socket or a device without a reader)");
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnsafeFileError(shownAs, `it is not a regular file (${kindOf(stats)})`);
    if (stats.size > options.maxBytes) throw new UnsafeFileError(shownAs, `it is larger than ${formatCap(options.maxBytes)} (${stats.size} bytes)`);
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function formatCap(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

import { open, type FileHandle } from "node:fs/promises";
import { InvalidInputError } from "../../core/index.ts";
import { currentUid, SAFE_READ_FLAGS } from "../safe-file/index.ts";

export { currentUid };

/**
 * Flags every blob read opens with (core's {@link SAFE_READ_FLAGS}, shared with config files):
 * read-only, never through a symbolic link (a planted `<id>.txt -> /etc/passwd` fails with ELOOP),
 * and non-blocking so a planted FIFO cannot hang the open (the fstat check below then refuses it).
 */
export const BLOB_READ_FLAGS = SAFE_READ_FLAGS;

/** The error for a cache entry that is not a plain file of the user's: what it is and the fix. */
function notOurs(path: string, what: string, kind: string): InvalidInputError {
  return new InvalidInputError(
    `refusing to read ${path}: ${what}. ${kind} files are regular files written by pi-governor; remove it (rm ${JSON.stringify(path)})`,
    {
      agentMessage:
        "The stored output cannot be read safely. Re-run the original tool call, narrowed, instead, and tell the user the blob cache holds a file it did not write.",
    },
  );
}

/**
 * Opens a blob file for reading without following links and checks what was opened (not what the
 * name pointed to a moment before): a regular file owned by the current user. Close the handle.
 */
export function openBlobFile(path: string): Promise<FileHandle> {
  return openPrivateFile(path, "Blob");
}

/**
 * Opens any of pi-governor's private cache files (a blob, recall's index) for reading the way blobs
 * are opened: no link followed (ELOOP), never blocking on a planted FIFO or device (O_NONBLOCK), and
 * the opened file must be a regular file of the current user. `kind` names the files in the error
 * ("Blob", "Recall index"). Close the handle.
 */
export async function openPrivateFile(path: string, kind: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, BLOB_READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw notOurs(path, "it is a symbolic link", kind);
    throw error;
  }
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw notOurs(path, "it is not a regular file", kind);
    const uid = currentUid();
    if (uid !== undefined && s.uid !== uid) throw notOurs(path, `it is owned by uid ${s.uid}, not by you (uid ${uid})`, kind);
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/**
 * Recall's own files follow the blob cache's rules on every open: the index folder must be a real
 * directory of the user's, not a link, not group/world-writable (lib/blobs checkPrivateDir), and the
 * index file and its -wal/-shm/-journal companions must be regular files of the user's, opened
 * without following links and without blocking on a planted FIFO (lib/blobs openPrivateFile). Only
 * then does SQLite open the file by name: in a private folder nobody else can swap it meanwhile.
 */
import { dirname } from "node:path";
import { checkPrivateDir, openPrivateFile, type BlobDirState, type PrivateDirLabel } from "../../lib/blobs/index.ts";

/** How messages name the index folder and the key that moves it. */
export const INDEX_FOLDER: PrivateDirLabel = { what: "recall index folder", setting: "recall.dbPath" };

/** SQLite's files for the database at `path`. */
export function indexFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/**
 * Checks the folder of `path` (creating it, mode 0700, with `create`) and every index file that
 * exists. "missing": no folder or no index file yet. Throws a message naming the file and the fix.
 */
export async function checkIndexFiles(path: string, options: { create: boolean }): Promise<BlobDirState> {
  const folder = await checkPrivateDir(dirname(path), options, INDEX_FOLDER);
  if (folder === "missing") return "missing";
  let exists = false;
  for (const [i, name] of indexFiles(path).entries()) {
    try {
      await (await openPrivateFile(name, "Recall index")).close();
      if (i === 0) exists = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return exists ? "ready" : "missing";
}

/**
 * Rows that could not reach the index before the session ended (another process held its lock past
 * the bounded wait) are kept in a spill file beside the index and replayed by the next writer that
 * opens it. A spill file is private (0600, created exclusively, never through a link) in the index
 * folder, whose checks (index-file.ts) already ran; it holds rows only, never text: every output's
 * blob was written before it was spilled.
 *
 * Replay reads each file as the blob cache reads blobs (no link, no FIFO, a regular file of the
 * user's), bounded in size, checks every field, and deletes the file before its rows are queued: when
 * two writers start together only the one whose unlink succeeds keeps the rows.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { BLOB_ID_PATTERN, openPrivateFile } from "../../lib/blobs/index.ts";
import type { PendingOutput } from "./index-store.ts";

/** Most bytes read from one spill file (4 MiB: far more than maxQueued rows of a session). */
const MAX_SPILL_BYTES = 4 * 1024 * 1024;
/** Most spill files replayed by one writer (the rest wait for the next start). */
const MAX_SPILL_FILES = 64;

const spilledRow = z
  .object({
    sessionId: z.string().max(512),
    project: z.string().max(4_096),
    tool: z.string().min(1).max(256),
    args: z.string().max(4_096),
    turn: z.number().int().min(0).max(1e9),
    atMs: z.number().int().min(0).max(1e15),
    toolCallId: z.string().max(512),
    blobId: z.string().regex(BLOB_ID_PATTERN),
    isError: z.boolean(),
  })
  .strict();

/** The name prefix of `indexPath`'s spill files. */
function spillPrefix(indexPath: string): string {
  return `${basename(indexPath)}.spill-`;
}

/**
 * Writes `rows` (without text) to a new spill file beside `indexPath`; returns its path. The folder
 * must have been checked (checkIndexFiles). Throws when the file cannot be written.
 */
export async function writeSpill(indexPath: string, rows: readonly PendingOutput[]): Promise<string> {
  const path = join(dirname(indexPath), `${spillPrefix(indexPath)}${process.pid}-${Date.now()}-${randomBytes(4).toString("hex")}.jsonl`);
  const handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(rows.map(({ text: _text, ...row }) => JSON.stringify(row)).join("\n") + "\n", "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  return path;
}

/**
 * Takes every spill file of `indexPath` (at most 64): reads it, deletes it, and returns the valid
 * rows of the files this process deleted, at most `maxRows`. Bad lines are skipped and counted.
 */
export async function takeSpills(indexPath: string, maxRows: number): Promise<{ rows: PendingOutput[]; files: number; skipped: number }> {
  const dir = dirname(indexPath);
  const prefix = spillPrefix(indexPath);
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.startsWith(prefix) && n.endsWith(".jsonl"))
    .sort()
    .slice(0, MAX_SPILL_FILES);
  const rows: PendingOutput[] = [];
  let files = 0;
  let skipped = 0;
  for (const name of names) {
    const path = join(dir, name);
    let text: string;
    try {
      const handle = await openPrivateFile(path, "Recall spill");
      try {
        const buffer = Buffer.alloc(MAX_SPILL_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, MAX_SPILL_BYTES, 0);
        text = buffer.subarray(0, bytesRead).toString("utf8");
      } finally {
        await handle.close();
      }
      await unlink(path);
    } catch {
      continue; // taken by another writer meanwhile, or not a file of ours: left for the user to see
    }
    files++;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      const parsed = spilledRow.safeParse(row);
      if (!parsed.success || rows.length >= maxRows) skipped++;
      else rows.push(parsed.data);
    }
  }
  return { rows, files, skipped };
}

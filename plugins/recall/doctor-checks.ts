/**
 * What the doctor checks for the recall plugin: the search index `recall.dbPath` resolves to, its
 * folder and files, under the same rules the plugin opens them with (a private folder of the user's,
 * no link, no FIFO), looked at without creating anything. Recall keeps the outputs themselves in the
 * blobs plugin's store (the `blobs:store` service), whose folder the blobs plugin's check reports.
 */
import type { DoctorCheckContext, DoctorCheckResult } from "../../core/index.ts";
import type { BlobDirState } from "../../lib/blobs/index.ts";
import { indexPathFor, type RecallOptions } from "./config.ts";
import { checkIndexFiles } from "./index-file.ts";

/** The recall index line for `path`; `inspect` looks at its folder and files and throws a message naming the fix. */
async function checkRecallIndex(path: string, inspect: (path: string) => Promise<BlobDirState>): Promise<DoctorCheckResult> {
  try {
    const state = await inspect(path);
    const where = "outputs are kept in the blob cache, where blob_read reads them";
    return {
      name: "recall index",
      status: "ok",
      detail: state === "ready" ? `${path} (private to you); ${where}` : `${path} (not created yet; its folder is made with mode 700 at first use); ${where}`,
    };
  } catch (error) {
    return { name: "recall index", status: "fail", detail: `${path} cannot be used`, fix: (error as Error).message };
  }
}

/** The recall plugin's `doctorChecks`: the index a session would use, in `context`. */
export async function recallDoctorChecks(config: Pick<RecallOptions, "dbPath">, context: DoctorCheckContext): Promise<DoctorCheckResult[]> {
  if (context.sqliteUnavailable)
    return [
      { name: "recall index", status: "skip", detail: "off: it needs SQLite, and no driver loads (see the sqlite check); outputs still go to the blob cache" },
    ];
  return [await checkRecallIndex(indexPathFor(config.dbPath, context), (p) => checkIndexFiles(p, { create: false }))];
}

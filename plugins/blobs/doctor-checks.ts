/**
 * What the doctor checks for the blobs plugin: the cache folder `blobs.dir` resolves to exists (or
 * will be created, mode 700) and is private to the user: a real directory of theirs, not a link,
 * not writable by others. Looked at without creating anything.
 */
import type { DoctorCheckContext, DoctorCheckResult } from "../../core/index.ts";
import { type BlobDirState, checkBlobDir, resolveBlobDir } from "../../lib/blobs/index.ts";
import type { BlobsOptions } from "./config.ts";

/** The blob cache line for `dir`; `inspect` looks at the folder and throws a BlobDirError naming the fix. */
async function checkCacheDir(dir: string, inspect: (dir: string) => Promise<BlobDirState>): Promise<DoctorCheckResult> {
  try {
    const state = await inspect(dir);
    return {
      name: "blob cache",
      status: "ok",
      detail: state === "ready" ? `${dir} (private to you)` : `${dir} (not created yet; made with mode 700 at first use)`,
    };
  } catch (error) {
    return { name: "blob cache", status: "fail", detail: `${dir} cannot be used`, fix: (error as Error).message };
  }
}

/** The blobs plugin's `doctorChecks`: the folder a session would use for `config.dir`, in `context`. */
export async function blobsDoctorChecks(config: Pick<BlobsOptions, "dir">, context: DoctorCheckContext): Promise<DoctorCheckResult[]> {
  const dir = resolveBlobDir(config.dir, { cwd: context.cwd, agentDir: context.agentDir });
  return [await checkCacheDir(dir, (d) => checkBlobDir(d, { create: false }))];
}

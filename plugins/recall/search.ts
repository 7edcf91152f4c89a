/**
 * One search, shared by the model's tool, the slash command and the CLI: flush what is queued, query
 * the index, and drop (and delete) hits whose blob is gone, so no answer points at missing content.
 */
import type { BlobStore } from "../../lib/blobs/index.ts";
import type { RecallIndex, SearchHit, SearchOptions } from "./index-store.ts";

/** Where to search: this session, this project (the session's cwd), or everything indexed. */
export type SearchScope = "session" | "project" | "all";

/**
 * Hits whose blob still exists, best first; rows of missing blobs are removed from the index (unless
 * `removeGone` is false: a read-only reader).
 */
export async function searchLive(
  index: RecallIndex,
  store: Pick<BlobStore, "locate">,
  query: string,
  options: SearchOptions,
  removeGone = true,
): Promise<{ hits: SearchHit[]; relaxed: boolean }> {
  const limit = options.limit ?? 5;
  const { hits, relaxed } = index.search(query, { ...options, limit: limit + 5 });
  const live: SearchHit[] = [];
  for (const hit of hits) {
    const exists = await store.locate(hit.blobId).then(
      () => true,
      () => false,
    );
    if (exists) live.push(hit);
    else if (removeGone) index.removeBlob(hit.blobId);
    if (live.length >= limit) break;
  }
  return { hits: live, relaxed };
}

/** The filters of `scope` for a session in `cwd`. */
export function scopeFilter(scope: SearchScope, sessionId: string, cwd: string): SearchOptions {
  return scope === "all" ? {} : scope === "project" ? { project: cwd } : { sessionId };
}

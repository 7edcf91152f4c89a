/**
 * Stores the full arguments of cut tool calls in the blob store, so the `blob_read` a cut marker
 * names finds them. Pruning runs on the `context` hook before every model call and must not wait
 * for the disk, so writes run in the background, one at a time (a reloaded long session may cut
 * dozens of calls at once), and each id is written once per session.
 *
 * A store that cannot be written costs the way back, never the request: the failure is logged once
 * and never thrown.
 */
import { errorText } from "../../core/errors.ts";
import type { Logger } from "../../core/index.ts";
import type { BlobStore } from "../../lib/blobs/index.ts";

/** Writes cut arguments to the blob store once per id, in the background; failures are logged once and never thrown. */
export class ArgumentBlobWriter {
  private readonly seen = new Set<string>();
  /** The last write in the queue; every link catches its own error, so the chain never rejects. */
  private tail: Promise<void> = Promise.resolve();
  private warned = false;

  /**
   * @param store the session's blob store (the `BLOB_STORE` service); undefined: nothing is written.
   * @param logger where the one warning of a failing store goes.
   */
  constructor(
    private readonly store: BlobStore | undefined,
    private readonly logger?: Logger,
  ) {}

  /** Queues `blobs` (from `cutToolCallArguments`) for writing; ids already queued in this session are skipped. Returns at once. */
  write(blobs: ReadonlyArray<{ id: string; text: string }>): void {
    const store = this.store;
    if (!store) return;
    for (const blob of blobs) {
      if (this.seen.has(blob.id)) continue;
      this.seen.add(blob.id);
      this.tail = this.tail.then(() => this.put(store, blob));
    }
  }

  /** Resolves when every queued write has finished (tests, shutdown); never rejects. */
  flush(): Promise<void> {
    return this.tail;
  }

  private async put(store: BlobStore, blob: { id: string; text: string }): Promise<void> {
    try {
      const written = await store.put(blob.text);
      // The marker already names blob.id; a different id would be a dangling way back.
      if (written.id !== blob.id) {
        this.logger?.warn("cut tool-call arguments were stored under another id than their marker names", { expected: blob.id, stored: written.id });
      }
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      this.logger?.warn(
        `cannot store cut tool-call arguments in the blob cache ${store.dir} (${errorText(error)}); their markers name blob_read but it will not find them. Fix the directory or set blobs.dir.`,
        { dir: store.dir, error: errorText(error) },
      );
    }
  }
}

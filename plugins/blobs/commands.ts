import type { BlobStore } from "../../lib/blobs/index.ts";
import { errorText } from "../../core/errors.ts";
import type { GovernorCommand } from "../../core/index.ts";
import { formatBytes } from "./marker.ts";

/** How many blobs `<root> blobs` lists by default. */
export const BLOBS_LIST_DEFAULT = 15;

/** `<root> blobs [N]`: the cache location, its totals and the N most recent blobs. */
export function listBlobsCommand(store: BlobStore): GovernorCommand {
  return {
    description: "Blob cache location, size, and the most recent stored outputs",
    async handler(args, ctx) {
      const n = Number.parseInt(args, 10);
      // An unsafe cache directory is reported with its fix, not thrown at the user.
      const listed = await store.list(Number.isFinite(n) && n > 0 ? n : BLOBS_LIST_DEFAULT).catch((error: unknown) => error as Error);
      if (listed instanceof Error) {
        ctx.ui.notify(`Blob cache ${store.dir}: ${errorText(listed)}`, "warning");
        return;
      }
      const { entries, count, totalBytes } = listed;
      const lines = [`Blob cache: ${store.dir}`, `${count} blob(s), ${formatBytes(totalBytes)} bytes`];
      for (const e of entries) {
        lines.push(`  ${new Date(e.mtimeMs).toISOString().slice(0, 19).replace("T", " ")}  ${formatBytes(e.bytes).padStart(13)} B  ${e.path}`);
      }
      ctx.ui.notify(lines.join("\n"), "info");
    },
  };
}

/** `<root> purge-blobs`: removes every stored output after a confirmation; refuses without a UI. */
export function purgeBlobsCommand(store: BlobStore, root: string): GovernorCommand {
  return {
    description: "Delete every stored full output (asks first)",
    async handler(_args, ctx) {
      const listed = await store.list(0).catch((error: unknown) => error as Error);
      if (listed instanceof Error) {
        ctx.ui.notify(`Blob cache ${store.dir}: ${errorText(listed)}. Nothing was purged.`, "warning");
        return;
      }
      const { count, totalBytes } = listed;
      if (!ctx.ui.hasUI) {
        ctx.ui.notify(
          `/${root} purge-blobs needs a confirmation and there is no interactive UI. Run it in pi's interactive mode, or delete the directory ${store.dir} yourself.`,
          "warning",
        );
        return;
      }
      const ok = await ctx.ui.confirm(
        "Purge blob cache?",
        `Delete ${count} stored output(s), ${formatBytes(totalBytes)} bytes, in ${store.dir}? Pointers in old results will stop working.`,
      );
      if (!ok) {
        ctx.ui.notify("Blob cache kept.", "info");
        return;
      }
      const done = await store.purge();
      ctx.ui.notify(`Purged ${done.removed} blob(s), ${formatBytes(done.freedBytes)} bytes from ${store.dir}.`, "info");
    },
  };
}

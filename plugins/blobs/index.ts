/**
 * `governor:blobs` (config key `blobs`): large tool results are stored whole in a content-addressed
 * cache and replaced by a bounded excerpt whose first line names the blob; `blob_read` reads them
 * back; `/<root> blobs` and `/<root> purge-blobs` show and clear the cache.
 */
import { BlobStore, isBlobId, resolveBlobDir, RetentionSchedule } from "../../lib/blobs/index.ts";
import { CONTEXT_STAGE, definePlugin, defineService, messageMeta, RESULT_STAGE } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { REDACTOR } from "../redact/index.ts";
import { listBlobsCommand, purgeBlobsCommand } from "./commands.ts";
import { blobsDefaults, blobsRenamedKeys, blobsSchema } from "./config.ts";
import { blobsDoctorChecks } from "./doctor-checks.ts";
import { blobReadTool } from "./read-tool.ts";
import { createShaper } from "./shape.ts";

export { BUILTIN_BLOB_TOOLS, blobsDefaults, blobsSchema, type BlobsOptions } from "./config.ts";
export { BLOB_MARKER_PATTERN, BLOB_READ_TOOL, blobMarker, blobReadCall } from "./marker.ts";
export { buildExcerpt, type Excerpt, type ExcerptOptions } from "./excerpt.ts";
export { jsonOutline } from "./json-outline.ts";
/** The tag of tools never cut into another blob; defined in the core, re-exported for older imports. */
export { REHYDRATION_TAG } from "../../lib/tags/index.ts";

/** Plugin name, as taps, logs and errors show it. */
export const BLOBS_PLUGIN = "governor:blobs";

/**
 * The session's blob store, for plugins that keep a way back to text they take out of the context.
 * Recall requires it (its `blob_read` way back is the store; one folder for every plugin). Budget and
 * prune (argument cuts, folds) list it in `optional` and read it with `services.maybe(BLOB_STORE)`;
 * without the blobs plugin they name another way back.
 */
export const BLOB_STORE = defineService<BlobStore>("blobs:store", { providedBy: `${BLOBS_PLUGIN} (blobs() from pi-governor/plugins/blobs/index.ts)` });

/** The blobs plugin factory: `blobs()` or `blobs({ excerptBytes: 4096 })`. */
export const blobs = definePlugin({
  name: BLOBS_PLUGIN,
  configKey: "blobs",
  description: "Stores large tool outputs whole in a private content-addressed cache and shows the model a bounded excerpt with a pointer",
  schema: blobsSchema,
  defaults: blobsDefaults,
  renamedKeys: blobsRenamedKeys,
  // Where files are written, and how long the cache every project shares keeps them, is the user's
  // choice, not a cloned repository's (a project's maxBytes: 0 would delete every project's outputs).
  trustedKeys: ["dir", "maxBytes", "maxAgeDays"],
  provides: [BLOB_STORE],
  optional: [REDACTOR],
  doctorChecks: blobsDoctorChecks,
  apply(pipeline, config, services) {
    const redactor = services.maybe(REDACTOR);
    const store = new BlobStore({
      dir: resolveBlobDir(config.dir, { cwd: services.cwd, agentDir: services.agentDir }),
      maxBytes: config.maxBytes,
      maxAgeDays: config.maxAgeDays,
      // Every write is redacted by the store itself; the session's redactor knows the servers' env values.
      ...(redactor ? { redactor } : {}),
    });
    services.provide(BLOB_STORE, store);

    pipeline.hooks.toolResult.tap({ name: BLOBS_PLUGIN, stage: RESULT_STAGE.SHAPE }, createShaper(store, config, services));
    // A resumed session points to blobs written by an earlier process: every message list the model
    // gets names them in result details, so retention learns them here (read-only, before pruning replaces old results).
    pipeline.hooks.context.tap({ name: BLOBS_PLUGIN, stage: CONTEXT_STAGE.BLOBS }, (messages) => {
      for (const m of messages) {
        const id = messageMeta(m).blob?.id;
        if (isBlobId(id)) store.reference(id);
      }
      retention.messagesSeen();
      return undefined;
    });
    pipeline.registerTool(BLOBS_PLUGIN, blobReadTool(store, config.readMaxBytes));
    pipeline.registerCommand(BLOBS_PLUGIN, `${services.commandRoot} blobs`, listBlobsCommand(store));
    pipeline.registerCommand(BLOBS_PLUGIN, `${services.commandRoot} purge-blobs`, purgeBlobsCommand(store, services.commandRoot));

    // Retention: once the session's first message list has named the blobs it points to (a resumed
    // session's blobs may be older than maxAgeDays), then every sweepIntervalMinutes on an unref'd timer.
    const sweep = async () => {
      try {
        const report = await store.sweep();
        if (report.removed || report.tempRemoved) services.logger.info("blob retention", { ...report });
      } catch (error) {
        services.logger.warn("blob retention failed", { dir: store.dir, error: errorText(error) });
      }
    };
    const retention = new RetentionSchedule(services.clock, config.sweepIntervalMinutes, sweep);
    pipeline.hooks.sessionStart.tap({ name: BLOBS_PLUGIN }, () => retention.start());
    pipeline.hooks.sessionShutdown.tap({ name: BLOBS_PLUGIN }, () => retention.stop());
  },
});

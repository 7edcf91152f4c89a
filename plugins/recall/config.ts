/**
 * The `recall` config section: schema and defaults in one place.
 *
 * ```json
 * { "recall": { "dbPath": "", "answerBytes": 2048, "exclude": [] } }
 * ```
 */
import { join } from "node:path";
import { z } from "zod";
import { pathSchema, toolListSchema } from "../../lib/config/index.ts";
import { cacheRoot, resolveBlobDir } from "../../lib/blobs/index.ts";

/** The schema of the `recall` section (without `enabled`, which definePlugin adds). */
export const recallSchema = z.object({
  dbPath: pathSchema().describe(
    'SQLite file of the search index; "" = ~/.pi/cache/pi-governor/recall/index.db (<PI_CODING_AGENT_DIR>/cache/pi-governor/recall/index.db when that variable names another agent directory). Created with mode 0600 in a 0700 directory; a folder that is a link, not yours, or group/world-writable is refused. Default "".',
  ),
  storeBlobs: z
    .boolean()
    .describe(
      "Store every indexed output that was not cut to a blob in the blobs plugin's cache (blobs.dir) and name it in the result's details.blobId, so every pruned placeholder has a blob_read way back. Default true.",
    ),
  searchAllProjects: z
    .boolean()
    .describe(
      'Offer the model context_search scope "all": outputs recorded in every project, not only this one. Off by default, because a prompt injection in one repository could then read what another project printed. Default false.',
    ),
  chunkLines: z.number().int().min(1).max(1_000).describe("Lines per indexed chunk (a hit points at one chunk's line range). Default 40."),
  chunkBytes: z.number().int().min(256).max(65_536).describe("Characters per indexed chunk. Default 4096."),
  maxIndexBytes: z
    .number()
    .int()
    .min(1_024)
    .max(64 * 1024 * 1024)
    .describe("Bytes of one output that are indexed (the blob keeps all of it). Default 4194304 (4 MiB)."),
  maxOutputs: z.number().int().min(100).max(10_000_000).describe("Outputs the index keeps (the oldest go first); shared by every project. Default 100000."),
  batchSize: z.number().int().min(1).max(10_000).describe("Outputs queued before a write is scheduled at once. Default 20."),
  flushIntervalMs: z
    .number()
    .int()
    .min(10)
    .max(600_000)
    .describe("Longest time an output waits in the queue, in milliseconds (the timer never keeps the process alive). Default 250."),
  maxQueued: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .describe("Outputs waiting for a locked index; beyond this the oldest lose their index row (one warning; their blob is kept). Default 2000."),
  closeWaitMs: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .describe(
      "At session end, how long to keep retrying an index another process holds locked, in milliseconds; rows still waiting then are kept in a private spill file beside the index and indexed by the next session. Default 1000.",
    ),
  answerBytes: z.number().int().min(512).max(16_384).describe("Most UTF-8 bytes of one context_search answer. Default 2048."),
  defaultLimit: z.number().int().min(1).max(50).describe("Hits per search when the caller does not say. Default 5."),
  sweepIntervalMinutes: z
    .number()
    .min(0)
    .max(1_440)
    .describe("Rows whose blob is gone are removed at the session's first model call and then every this many minutes (0: only the first). Default 30."),
  exclude: toolListSchema().describe("Tools never indexed. Default []."),
  status: z.boolean().describe("Footer entry with the tokens kept out of the context. Default true."),
});

/** Keys older releases read, still accepted in config files (with a note). */
export const recallRenamedKeys = {
  blobDir: { removed: "recall keeps outputs in the blobs plugin's cache, where blob_read reads; set blobs.dir to move it" },
} as const;

/** The `recall` options (without `enabled`). */
export type RecallOptions = z.infer<typeof recallSchema>;

/** Defaults for the `recall` section. */
export const recallDefaults: RecallOptions = {
  dbPath: "",
  storeBlobs: true,
  searchAllProjects: false,
  chunkLines: 40,
  chunkBytes: 4_096,
  maxIndexBytes: 4 * 1024 * 1024,
  maxOutputs: 100_000,
  batchSize: 20,
  flushIntervalMs: 250,
  maxQueued: 2_000,
  closeWaitMs: 1_000,
  answerBytes: 2_048,
  defaultLimit: 5,
  sweepIntervalMinutes: 30,
  exclude: [],
  status: true,
};

/**
 * The index's default location, beside the blob cache: `~/.pi/cache/pi-governor/recall/index.db`,
 * or under `<agentDir>/cache/pi-governor` for another agent directory (see lib/blobs cacheRoot).
 */
export function defaultIndexPath(options: { agentDir?: string; home?: string } = {}): string {
  return join(cacheRoot(options), "recall", "index.db");
}

/**
 * The index file a session opens for `dbPath`: a relative path from the project folder `cwd`, a
 * leading ~ the home directory, "" the default beside the blob cache ({@link defaultIndexPath}).
 */
export function indexPathFor(dbPath: string, where: { cwd: string; agentDir: string }): string {
  return dbPath ? resolveBlobDir(dbPath, { cwd: where.cwd }) : defaultIndexPath({ agentDir: where.agentDir });
}

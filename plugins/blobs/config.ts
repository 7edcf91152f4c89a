import { z } from "zod";
import { boundedRecord, pathSchema, toolListSchema, toolNameSchema } from "../../lib/config/index.ts";
import { DEFAULT_BLOB_DIR, DEFAULT_BLOB_MAX_AGE_DAYS, DEFAULT_BLOB_MAX_BYTES } from "../../lib/blobs/index.ts";

/** Upper bound of every per-result size key, in bytes (4 MiB): far above any useful excerpt or answer. */
const MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** Per-tool overrides of when and how much to cut. */
const toolShapeSchema = z
  .object({
    thresholdBytes: z.number().int().min(256).max(MAX_RESULT_BYTES).optional().describe("Results larger than this many UTF-8 bytes are cut to an excerpt"),
    excerptBytes: z.number().int().min(256).max(MAX_RESULT_BYTES).optional().describe("Size limit of the excerpt, marker included, in UTF-8 bytes"),
  })
  .strict();

/** Options of the blobs plugin (config key `blobs`). */
export const blobsSchema = z.object({
  dir: pathSchema()
    .min(1)
    .describe(
      "Blob cache directory; a leading ~ is the home directory. Default ~/.pi/cache/pi-governor/blobs (<PI_CODING_AGENT_DIR>/cache/pi-governor/blobs when that variable names another agent directory)",
    ),
  maxBytes: z
    .number()
    .int()
    .min(0)
    .max(1024 ** 4)
    .describe("Retention: total bytes the cache keeps (oldest go first); the cache is shared by every project. Default 262144000 (250 MiB)"),
  maxAgeDays: z.number().min(0).max(3_650).describe("Retention: blobs older than this many days are removed; the cache is shared by every project. Default 14"),
  thresholdBytes: z
    .number()
    .int()
    .min(256)
    .max(MAX_RESULT_BYTES)
    .describe(
      "Results larger than this many UTF-8 bytes are stored whole and cut to an excerpt (a budget plugin's per-tool maxBytes takes precedence). Default 16384",
    ),
  excerptBytes: z
    .number()
    .int()
    .min(256)
    .max(MAX_RESULT_BYTES)
    .describe("Size limit of the excerpt the model sees, marker included, in UTF-8 bytes. Default 6144"),
  builtinTools: toolListSchema().describe("pi's own tools (read, bash, grep, find, ls, ...) whose large results are cut too; empty: governed tools only"),
  perTool: boundedRecord(toolNameSchema(), toolShapeSchema).describe("Per-tool thresholdBytes / excerptBytes, by tool name (formerly `tools`). Default {}"),
  maxDetailsBytes: z
    .number()
    .int()
    .min(256)
    .max(MAX_RESULT_BYTES)
    .describe("Result details larger than this (JSON bytes) lose their largest keys, so pi never persists a second raw copy. Default 2048"),
  readMaxBytes: z.number().int().min(512).max(MAX_RESULT_BYTES).describe("Most UTF-8 bytes one blob_read answer returns. Default 12288"),
  sweepIntervalMinutes: z
    .number()
    .min(0)
    .max(1_440)
    .describe("Retention runs at the session's first prompt and then every this many minutes (0: only at the first prompt; at most 1440, one day). Default 30"),
  jsonOutlineMaxBytes: z
    .number()
    .int()
    .min(0)
    .max(64 * 1024 * 1024)
    .describe("JSON answers up to this size are parsed to say which keys and array lengths were left out. Default 8388608 (8 MiB)"),
});

/**
 * pi's built-in tools whose large output every shipped preset sends to the blob cache
 * (`blobs({ builtinTools: [...BUILTIN_BLOB_TOOLS] })`): `read` and `bash`, the two whose output can be
 * any size. The plugin's own default is none (governed tools only), for compositions that cut pi's
 * output elsewhere.
 */
export const BUILTIN_BLOB_TOOLS: readonly string[] = Object.freeze(["read", "bash"]);

/** The blobs plugin's options. */
export type BlobsOptions = z.infer<typeof blobsSchema>;

/** Defaults: the one place they live. */
export const blobsDefaults: BlobsOptions = {
  dir: DEFAULT_BLOB_DIR,
  maxBytes: DEFAULT_BLOB_MAX_BYTES,
  maxAgeDays: DEFAULT_BLOB_MAX_AGE_DAYS,
  thresholdBytes: 16_384,
  excerptBytes: 6_144,
  builtinTools: [],
  perTool: {},
  maxDetailsBytes: 2_048,
  readMaxBytes: 12_288,
  sweepIntervalMinutes: 30,
  jsonOutlineMaxBytes: 8 * 1024 * 1024,
};

/** Old spellings of blobs keys, still read from config files (with a "renamed" problem). */
export const blobsRenamedKeys = { tools: { to: "perTool" } } as const;

/**
 * `governor:recall` (config key `recall`): nothing the session produced is ever lost. Every tool
 * output (governed tools and pi's built-ins) is indexed as it passes (toolResult, after blobs SHAPE)
 * into an SQLite FTS5 index ranked by BM25, chunked so a hit names a line range; outputs the blobs
 * plugin did not store are stored in the blob cache too and named in `details.blobId`, so every
 * pruned placeholder carries a byte-exact `blob_read` way back. The model searches with
 * `context_search`; the user with `/<root> search`, `pi-governor search`, and sees the savings in the
 * footer and `/<root> recall`. See README.md.
 */
import { readPiFullOutput } from "../../lib/pi/index.ts";
import {
  contentText,
  definePlugin,
  resultMeta,
  CONTEXT_STAGE,
  RESULT_STAGE,
  withResultMeta,
  type AgentMessageLike,
  type ContentBlock,
  type GovernorServices,
  type Logger,
  type ToolResultInfo,
  type ToolResultValue,
} from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { hasTag, REHYDRATION_TAG } from "../../lib/tags/index.ts";
import { type BlobStore, isBlobId, RetentionSchedule } from "../../lib/blobs/index.ts";
import { BLOB_STORE } from "../blobs/index.ts";
import { redactValue } from "../../lib/redact/index.ts";
import { sqliteUnavailable } from "../../lib/sqlite/index.ts";
import { formatCall } from "../../lib/tool-call/index.ts";
import { REDACTOR } from "../redact/index.ts";
import { purgeIndexCommand, recallStatusCommand, searchCommand } from "./commands.ts";
import { indexPathFor, recallDefaults, recallRenamedKeys, type RecallOptions, recallSchema } from "./config.ts";
import { recallDoctorChecks } from "./doctor-checks.ts";
import { SavingsTracker, statusText } from "./savings.ts";
import { contextSearchTool, CONTEXT_SEARCH_TOOL } from "./search-tool.ts";
import { RecallWriter } from "./writer.ts";

export { recallDefaults, recallSchema, defaultIndexPath, type RecallOptions } from "./config.ts";
export { RecallIndex, type OutputRecord, type SearchHit } from "./index-store.ts";
export { RecallWriter } from "./writer.ts";
export { CONTEXT_SEARCH_TOOL } from "./search-tool.ts";

/** Plugin name, as taps, logs and errors show it. */
export const RECALL_PLUGIN = "governor:recall";
/** toolResult stage: after blobs cut the result (so its blob id is known), before pins. */
export const RECALL_STAGE = RESULT_STAGE.SHAPE + 50;
/** User turns remembered per session for turn numbers (a bound, far above any real session). */
const MAX_TURNS_TRACKED = 100_000;

/** Appended to pi's compaction summary in what the model gets (request-only; the session keeps the original). */
export const COMPACTION_POINTER =
  "Tool outputs from before this summary are still searchable: context_search finds them and names the blob_read call that reads them back exactly.";

/**
 * The message list with the pointer appended to each compaction summary, or undefined when there is
 * none. The same input always gives the same bytes, so the provider's prompt cache keeps matching.
 */
export function withCompactionPointer(messages: AgentMessageLike[]): AgentMessageLike[] | undefined {
  let out: AgentMessageLike[] | undefined;
  messages.forEach((m, i) => {
    if (m.role !== "compactionSummary" || typeof m.summary !== "string" || m.summary.endsWith(COMPACTION_POINTER)) return;
    out ??= [...messages];
    out[i] = { ...m, summary: `${m.summary}\n\n${COMPACTION_POINTER}` };
  });
  return out;
}

/** Footer status key. */
export const RECALL_STATUS_KEY = "governor-recall";

/** The recall plugin factory: `recall()` or `recall({ dbPath: "/tmp/recall.db" })`. */
export const recall = definePlugin({
  name: RECALL_PLUGIN,
  configKey: "recall",
  description: "Indexes every tool output (FTS5, BM25) so anything pruned or cut can be found with context_search and read back byte-exact with blob_read.",
  schema: recallSchema,
  defaults: recallDefaults,
  renamedKeys: recallRenamedKeys,
  // Where files are written, how many rows the index every project shares keeps, and whether the
  // model may read what other projects printed, is the user's choice.
  trustedKeys: ["dbPath", "maxOutputs", "searchAllProjects"],
  // Tools the user keeps out of the index (their outputs never written there): a project may add more.
  additiveKeys: ["exclude"],
  // One blob store for every plugin: blob_read reads where recall writes, and both follow the agent dir.
  requires: [BLOB_STORE],
  optional: [REDACTOR],
  doctorChecks: recallDoctorChecks,
  apply(pipeline, config, services) {
    // The index and the blob store redact every byte they write themselves, with the session's
    // redactor (it knows the servers' env values).
    const store = services.need(BLOB_STORE);
    const { writer, unavailable } = openWriter(config, services, store);
    const savings = new SavingsTracker();
    const turns = new TurnCounter();

    pipeline.hooks.toolResult.tap({ name: RECALL_PLUGIN, stage: RECALL_STAGE }, resultIndexer(config, services, { store, writer, savings, turns }));
    pipeline.hooks.context.tap({ name: RECALL_PLUGIN, stage: CONTEXT_STAGE.RECALL }, (messages) => {
      const report = savings.measure(messages);
      turns.see(messages, report.turn);
      if (config.status) services.ui().setStatus(RECALL_STATUS_KEY, statusText(report, writer.indexed));
      retention.messagesSeen();
      return withCompactionPointer(messages);
    });

    // Retention: no row outlives its content. Rows whose blob is gone are removed at the first model
    // call of a session and then on an unref'd timer.
    const retention = new RetentionSchedule(services.clock, config.sweepIntervalMinutes, () => removeOrphanRows(writer, store, services.logger));
    pipeline.hooks.sessionStart.tap({ name: RECALL_PLUGIN }, () => {
      retention.start();
      writer.start();
      turns.reset();
    });
    pipeline.hooks.sessionShutdown.tap({ name: RECALL_PLUGIN }, async () => {
      retention.stop();
      await writer.close();
    });

    const scopes = config.searchAllProjects ? (["session", "project", "all"] as const) : (["session", "project"] as const);
    if (!unavailable)
      pipeline.registerTool(
        RECALL_PLUGIN,
        contextSearchTool({ writer, store, cwd: services.cwd, answerBytes: config.answerBytes, defaultLimit: config.defaultLimit, scopes }),
      );
    const root = services.commandRoot;
    pipeline.registerCommand(RECALL_PLUGIN, `${root} search`, searchCommand(writer, store, root));
    pipeline.registerCommand(RECALL_PLUGIN, `${root} purge-index`, purgeIndexCommand(writer, root));
    pipeline.registerCommand(RECALL_PLUGIN, `${root} recall`, recallStatusCommand(writer, savings));
  },
});

type RecallConfig = RecallOptions & { enabled: boolean };

/** The session's turn number: monotonic across compaction (which removes old user messages). */
class TurnCounter {
  current = 0;
  private readonly userTurns = new Set<number>();

  /** Counts each user message once, by its timestamp; `measured` is the turn the savings tracker counted. */
  see(messages: readonly AgentMessageLike[], measured: number): void {
    for (const m of messages)
      if (m.role === "user" && typeof m.timestamp === "number" && this.userTurns.size < MAX_TURNS_TRACKED) this.userTurns.add(m.timestamp);
    this.current = Math.max(measured, this.userTurns.size);
  }

  reset(): void {
    this.current = 0;
    this.userTurns.clear();
  }
}

/**
 * The index writer. Without a SQLite driver there is no index: outputs are still stored as blobs
 * (every placeholder keeps its way back), but nothing is searchable, so context_search is not offered.
 * Said once at load, merged with every other stage off for the same reason.
 */
function openWriter(
  config: RecallConfig,
  services: GovernorServices,
  store: BlobStore,
): { writer: RecallWriter; unavailable: ReturnType<typeof sqliteUnavailable> } {
  const redactor = services.maybe(REDACTOR);
  const writer = new RecallWriter(
    {
      path: indexPathFor(config.dbPath, services),
      chunk: { maxLines: config.chunkLines, maxBytes: config.chunkBytes },
      batchSize: config.batchSize,
      flushIntervalMs: config.flushIntervalMs,
      maxQueued: config.maxQueued,
      maxIndexBytes: config.maxIndexBytes,
      maxOutputs: config.maxOutputs,
      closeWaitMs: config.closeWaitMs,
    },
    { clock: services.clock, logger: services.logger, notify: (m, l) => services.ui().notify(m, l), store, ...(redactor ? { redactor } : {}) },
  );
  const unavailable = sqliteUnavailable();
  if (unavailable) {
    writer.off(unavailable.why);
    services.logger.warn(`the recall index is off: ${unavailable.message}`, {
      off: "recall's search index (context_search and pi-governor search find nothing)",
      why: unavailable.why,
      fix: unavailable.fix,
    });
  }
  return { writer, unavailable };
}

/** The toolResult tap: indexes each output, stores what the blobs plugin did not, and names its blob. */
function resultIndexer(
  config: RecallConfig,
  services: GovernorServices,
  o: { store: BlobStore; writer: RecallWriter; savings: SavingsTracker; turns: TurnCounter },
): (value: ToolResultValue, info: ToolResultInfo) => Promise<ToolResultValue | undefined> {
  const { store, writer, savings } = o;
  const exclude = new Set([...config.exclude, CONTEXT_SEARCH_TOOL]);
  return async (value, info) => {
    if (exclude.has(value.toolName) || hasTag(info.tool, REHYDRATION_TAG)) return undefined;
    const text = contentText(value.content.filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text"));
    const base = {
      sessionId: info.sessionId,
      project: services.cwd,
      tool: value.toolName,
      // Values are redacted before formatCall cuts them to 80 characters (a cut token has no shape left).
      args: formatCall(value.toolName, redactValue(value.input, store), [], 3, 80),
      turn: o.turns.current,
      atMs: Date.now(),
      toolCallId: value.toolCallId,
      isError: value.isError,
    };
    const blob = resultMeta(value).blob;
    const cut = blob?.id;
    if (isBlobId(cut)) {
      // The blobs plugin stored the full output: index that, read from the blob off the hot path.
      writer.add({ ...base, blobId: cut });
      return undefined;
    }
    // Cut without a stored copy (the blob cache failed): the text is an excerpt, and naming it as
    // the output would be a lie. Nothing to index byte-exact.
    if (blob?.truncated) return undefined;
    savings.remember(value.toolCallId, text.length);
    if (!config.storeBlobs || text.length === 0) return undefined;
    // pi cut the output itself (bash, pi 1.x's MCP tools) and saved the whole of it: keep that. The
    // store redacts it (the file never passed the redact stage) and names the id of the bytes it
    // will write: the result names its blob now, the write happens in the queue (a failed write
    // leaves the output unindexed and warns once).
    const full = info.tool ? undefined : await readPiFullOutput(value.details);
    const prepared = store.prepare(full ?? text);
    writer.add({ ...base, blobId: prepared.id, text: prepared });
    return withResultMeta(value, { blob: { truncated: false, id: prepared.id } });
  };
}

/** Removes the index rows whose blob is gone; a failure is logged, never thrown. */
async function removeOrphanRows(writer: RecallWriter, store: BlobStore, logger: Logger): Promise<void> {
  try {
    await writer.flush();
    const index = await writer.index();
    if (!index) return;
    let removed = 0;
    for (const id of index.blobIds()) {
      const exists = await store.locate(id).then(
        () => true,
        () => false,
      );
      if (!exists) removed += index.removeBlob(id);
    }
    if (removed) logger.info("recall retention", { removed });
  } catch (error) {
    logger.warn("recall retention failed", { error: errorText(error) });
  }
}

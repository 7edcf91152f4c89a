/**
 * `governor:execution-log` (config key `executionLog`, TOOL_STAGE.OBSERVE: the outermost wrapper, so it
 * sees the final observation with retries and the total duration): records every governed call in the
 * SQLite table `tool_execution_log` (the base columns plus session id, error category, retries, bytes
 * in and out, and the parent call of a nested one), and every other call pi runs (its built-ins, its
 * own MCP tools, calls a codemode script makes) from pi's execution events. Writes are batched off the call path (see writer.ts); a database locked by another
 * process keeps the rows and retries without blocking the event loop; one that cannot be opened
 * degrades to one warning, never a failed call. `pi-governor stats` reads it (stats-cli.ts). Storage
 * goes through lib/sqlite (node:sqlite where this Node has it, else better-sqlite3).
 */
import { definePlugin, EVENT_STAGE, LIFECYCLE_STAGE, TOOL_STAGE, type Clock, type HostToolCall, type ToolWrapper } from "../../core/index.ts";
import { sqliteUnavailable } from "../../lib/sqlite/index.ts";
import { REDACTOR } from "../redact/index.ts";
import { UNKNOWN_TOOL_LABEL } from "./columns.ts";
import { defaultDbPath, executionLogDefaults, executionLogSchema } from "./config.ts";
import { ExecutionLogWriter, type PendingExecution } from "./writer.ts";

export { executionLogDefaults, executionLogSchema, defaultDbPath, type ExecutionLogOptions } from "./config.ts";
export { ExecutionLogWriter, type PendingExecution } from "./writer.ts";
export { migrate, SCHEMA_VERSION, TABLE, CREATE_TABLE_SQL, type ExecutionRow } from "./schema.ts";
export { columnText, MAX_COLUMN_CHARS, UNKNOWN_TOOL_LABEL } from "./columns.ts";

/** Plugin name, as taps, logs and errors show it. */
export const EXECUTION_LOG_PLUGIN = "governor:execution-log";

/**
 * The logging wrapper around `writer`. `wallNow` gives epoch milliseconds for the ISO timestamps
 * (the services clock is monotonic, not wall time); default Date.now.
 */
export function executionLogWrapper(writer: ExecutionLogWriter, options: { exclude: readonly string[]; clock: Clock; wallNow?: () => number }): ToolWrapper {
  const exclude = new Set(options.exclude);
  const clock = options.clock;
  const wallNow = options.wallNow ?? Date.now;
  return (next, tool) => {
    if (exclude.has(tool.name)) return next;
    return async (call) => {
      const startedAtMs = wallNow();
      const obs = await next(call);
      // The pipeline's outermost guard sets obs.durationMs only after this layer returns; measure the
      // same span (from call.startedAt on the same clock) so the row matches the observation.
      writer.add({
        taskId: call.toolCallId,
        ...(call.parentToolCallId ? { parentTaskId: call.parentToolCallId } : {}),
        toolName: tool.name,
        status: obs.status,
        durationMs: Math.max(0, clock.now() - call.startedAt),
        startedAtMs,
        sessionId: call.sessionId,
        errorCategory: obs.status === "ERROR" ? obs.error.category : obs.status === "TIMEOUT_EXCEEDED" ? "timeout" : undefined,
        retries: obs.retries,
        args: call.args,
        content: obs.content,
      });
      return obs;
    };
  };
}

/** Status and error category of a row for a call pi ran itself (not a governed one). */
const HOST_OUTCOMES: Record<HostToolCall["outcome"], { status: string; errorCategory?: string }> = {
  ok: { status: "SUCCESS" },
  error_result: { status: "ERROR", errorCategory: "tool_error" },
  error: { status: "ERROR", errorCategory: "failed" },
  blocked: { status: "ERROR", errorCategory: "blocked" },
};

/**
 * The row of a call pi ran that is not a governed tool's (pi's built-ins, pi's own MCP tools, other
 * extensions' tools, nested calls of those): governed calls get theirs from the wrapper. A call to a
 * tool pi does not have is counted under {@link UNKNOWN_TOOL_LABEL}: its name is the model's text.
 */
export function hostCallRow(call: HostToolCall): PendingExecution | undefined {
  if (call.governed) return undefined;
  const { status, errorCategory } = HOST_OUTCOMES[call.outcome];
  return {
    taskId: call.toolCallId,
    ...(call.parentToolCallId ? { parentTaskId: call.parentToolCallId } : {}),
    toolName: call.known === false ? UNKNOWN_TOOL_LABEL : call.toolName,
    status,
    durationMs: call.durationMs,
    startedAtMs: call.startedAtMs,
    sessionId: call.sessionId,
    errorCategory,
    retries: 0,
    args: call.args,
    content: call.content,
  };
}

/** The execution-log plugin factory: `executionLog()` or `executionLog({ dbPath: "/tmp/x.db" })`. */
export const executionLog = definePlugin({
  name: EXECUTION_LOG_PLUGIN,
  configKey: "executionLog",
  description: "Records every tool call pi runs (status, duration, retries, bytes, error category, parent call) in SQLite for `pi-governor stats`.",
  schema: executionLogSchema,
  defaults: executionLogDefaults,
  // Where a database file is created is the user's choice, not a cloned repository's.
  trustedKeys: ["dbPath"],
  // Tools the user keeps out of the shared database: a project may add more, never log what the user left out.
  additiveKeys: ["exclude"],
  // Ids the provider gives are written into every row: redacted with the session's rules.
  optional: [REDACTOR],
  apply(pipeline, config, services) {
    // Load the SQLite driver now, while pi starts (better-sqlite3's native module takes ~100 ms to load,
    // node:sqlite ~1 ms), not inside the first write in the middle of a session. Without one the log
    // is off, said once at load (merged with every other stage off for the same reason).
    const unavailable = sqliteUnavailable();
    if (unavailable) {
      services.logger.warn(`the execution log is off: ${unavailable.message}`, { off: "the execution log", why: unavailable.why, fix: unavailable.fix });
      return;
    }
    const writer = new ExecutionLogWriter(
      {
        path: config.dbPath || defaultDbPath(services.agentDir),
        phase: config.phase,
        batchSize: config.batchSize,
        flushIntervalMs: config.flushIntervalMs,
        maxBufferedRows: config.maxBufferedRows,
        // The session's redactor when the redact plugin runs; the writer falls back to the built-in rules.
        redactor: services.maybe(REDACTOR),
      },
      {
        clock: services.clock,
        logger: services.logger,
        // The writer bounds its own messages: one when a lock wait starts, one when it ends, one if it gives up.
        notify: (message, level) => services.ui().notify(message, level),
      },
    );
    pipeline.hooks.toolCall.tap(
      { name: EXECUTION_LOG_PLUGIN, stage: TOOL_STAGE.OBSERVE },
      executionLogWrapper(writer, { exclude: config.exclude, clock: services.clock }),
    );
    const exclude = new Set(config.exclude);
    pipeline.hooks.event.tap({ name: EXECUTION_LOG_PLUGIN, stage: EVENT_STAGE.OBSERVE }, (event) => {
      if (event.type !== "host_tool_end" || exclude.has(event.call.toolName)) return;
      const row = hostCallRow(event.call);
      if (row) writer.add(row);
    });
    pipeline.hooks.sessionShutdown.tap({ name: EXECUTION_LOG_PLUGIN, stage: LIFECYCLE_STAGE.OBSERVE }, () => writer.close());
  },
});

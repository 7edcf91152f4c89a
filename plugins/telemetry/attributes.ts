/**
 * Span, event, attribute and metric names. Tool spans follow the OpenTelemetry GenAI semantic
 * conventions (`execute_tool <name>`, `gen_ai.*`); what is pi-governor's own is under `pi_governor.*`.
 * docs/telemetry.md lists them for users: keep both in step.
 */

/** GenAI semantic-convention attributes on tool spans. */
export const GEN_AI = Object.freeze({
  OPERATION: "gen_ai.operation.name",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  TOOL_DESCRIPTION: "gen_ai.tool.description",
  TOOL_TYPE: "gen_ai.tool.type",
  CONVERSATION_ID: "gen_ai.conversation.id",
  TOOL_ARGUMENTS: "gen_ai.tool.call.arguments",
  TOOL_RESULT: "gen_ai.tool.call.result",
});

/** The GenAI operation name of a tool span. */
export const EXECUTE_TOOL = "execute_tool";

/** pi-governor's attributes. */
export const ATTR = Object.freeze({
  ERROR_TYPE: "error.type",
  STATUS: "pi_governor.status",
  RETRIES: "pi_governor.retries",
  OWNER: "pi_governor.tool.owner",
  ATTEMPT: "pi_governor.attempt",
  WAIT_MS: "pi_governor.wait_ms",
  DURATION_MS: "pi_governor.duration_ms",
  TIMEOUT_MS: "pi_governor.timeout_ms",
  RETRY_STOPPED_BY: "pi_governor.retry.stopped_by",
  CIRCUIT_STATE: "pi_governor.circuit.state",
  CIRCUIT_KEY: "pi_governor.circuit.key",
  BUDGET_MAX_BYTES: "pi_governor.budget.max_bytes",
  BUDGET_STEP: "pi_governor.budget.step",
  BUDGET_CHANGE: "pi_governor.budget.change",
  BUDGET_BYTES: "pi_governor.budget.bytes",
  BUDGET_FITTED: "pi_governor.budget.fitted",
  BLOB_ID: "pi_governor.blob.id",
  BYTES_IN: "pi_governor.blob.bytes_in",
  BYTES_OUT: "pi_governor.blob.bytes_out",
  MCP_SERVER: "pi_governor.mcp.server",
  MCP_ATTEMPTS: "pi_governor.mcp.attempts",
  MCP_EVENT: "pi_governor.mcp.event",
  TOKENS_BEFORE: "pi_governor.context.tokens_before",
  TOKENS_AFTER: "pi_governor.context.tokens_after",
  PREFIX_BROKEN: "pi_governor.context.prefix_broken",
  PLACEHOLDERS: "pi_governor.context.placeholders",
  MESSAGES: "pi_governor.context.messages",
  CONTEXT_MODE: "pi_governor.context.mode",
});

/** Span event names. */
export const EVENT = Object.freeze({
  ATTEMPT: "pi_governor.attempt",
  TIMEOUT: "pi_governor.timeout",
  CIRCUIT: "pi_governor.circuit",
  BUDGET_DOWNSHIFT: "pi_governor.budget.downshift",
  BLOB_STORED: "pi_governor.blob.stored",
  MCP: "pi_governor.mcp",
});

/** Span names other than `execute_tool <name>`. */
export const SPAN = Object.freeze({
  CONTEXT: "pi_governor.context",
  SHAPE: "pi_governor.shape_result",
});

/** Metric names. */
export const METRIC = Object.freeze({
  CALLS: "pi_governor.tool.calls",
  ERRORS: "pi_governor.tool.errors",
  RETRIES: "pi_governor.tool.retries",
  TIMEOUTS: "pi_governor.tool.timeouts",
  BREAKER_OPENS: "pi_governor.breaker.opens",
  DURATION: "pi_governor.tool.duration",
  BYTES_KEPT_OUT: "pi_governor.context.bytes_kept_out",
  TOKENS_KEPT_OUT: "pi_governor.context.tokens_kept_out",
  MCP_RECONNECTS: "pi_governor.mcp.reconnects",
});

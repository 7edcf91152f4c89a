/**
 * The plugin SDK: everything a plugin or preset author needs from the kernel, and nothing the host
 * needs only to run it (that is `host/index.ts`). Plugins (`plugins/*`) and libraries (`lib/*`)
 * import the kernel only from here, which `test/unit/architecture/import-graph.test.ts` checks;
 * outside this repository it is `pi-governor/sdk`.
 *
 * Every name below carries its documentation at its declaration; the groups say what each is for.
 */

// The plugin contract: a plugin is a `{ name, apply }` object built by a factory beside its zod
// schema; a preset is a list of plugins. Presets merge their overrides into a plugin's defaults.
export { deepMerge, type DeepPartial } from "./config/merge.ts";
export type { RemovedKey, RenamedKey, RenamedKeys } from "./config/renamed.ts";
export {
  type CrossFieldProblem,
  definePlugin,
  definePreset,
  type GovernorPlugin,
  type PluginFactory,
  type PluginSpec,
  type Preset,
  type WithEnabled,
} from "./plugin.ts";

// The pipeline a plugin's `apply` receives, the hooks it taps and the stage of each tap, per hook.
export type { TapOptions } from "./hooks.ts";
export { Pipeline } from "./pipeline.ts";
export { CONTEXT_STAGE, DEFAULT_STAGE, EVENT_STAGE, GATE_STAGE, INJECT_STAGE, LIFECYCLE_STAGE, RESULT_STAGE, STAGE, TOOL_STAGE } from "./stages.ts";
export type {
  CommandContext,
  ContextInfo,
  ContextMessages,
  GovernedToolDefinition,
  GovernorCommand,
  Injection,
  PromptInfo,
  RunInfo,
  SessionInfo,
  ToolAnnotations,
  ToolCallContext,
  ToolExecuteResult,
  ToolGateDecision,
  ToolGateInfo,
  ToolHandler,
  ToolInfo,
  ToolResultInfo,
  ToolResultValue,
  ToolWrapper,
  TurnEndInfo,
  TurnInfo,
} from "./tool-types.ts";
export type { HostToolCall, PipelineEvent } from "./events.ts";
// pi 0.87+ context edits: the boundary drafts a `contextEdits` tap returns and the session's message entries.
export {
  type BoundaryDraft,
  type ContextEditDraft,
  messageIdentity,
  type RecordDraft,
  type SessionMessageEntry,
  type TurnBoundaryInfo,
} from "./context-edits.ts";

// Services: what the host hands `apply` (logger, clock, UI, session store) and the typed services
// plugins offer each other (`defineService` keys declared in `provides`, `requires`, `optional`).
export {
  type Clock,
  defineService,
  type GovernorServices,
  type IgnoredTrustedKey,
  type Logger,
  type LogLevel,
  type LogRecord,
  memorySessionStore,
  type OffBecause,
  type ServiceKey,
  type SessionStore,
  silentUi,
  sleep,
  systemClock,
  type UiBridge,
} from "./services.ts";
// What a status or doctor plugin reads about the governor its pipeline belongs to.
export { type Governor, governorOf } from "./governor.ts";

// Observations (what a governed call ends in), errors with stable codes and their classification.
export {
  assertNever,
  type ErrorObservation,
  failure,
  formatSeconds,
  type SuccessObservation,
  success,
  type TimeoutObservation,
  type ToolObservation,
  timedOut,
} from "./observation.ts";
export {
  AuthError,
  BudgetError,
  CircuitOpenError,
  ConnectionLostError,
  type ErrorCategory,
  errorText,
  GovernorError,
  type GovernorErrorOptions,
  InvalidInputError,
  isErrorCategory,
  isGovernorError,
  isPluginError,
  McpError,
  NetworkError,
  PipelineError,
  PluginError,
  RateLimitError,
  SpawnError,
  TimeoutError,
  UnknownError,
} from "./errors.ts";
export { type ClassifyContext, classifyError, tail } from "./classify.ts";

// Result metadata stages hand on, typed (budget, blob, pin, retry, circuit, timeout).
export {
  type BlobMeta,
  type BudgetMeta,
  type CallMeta,
  type CircuitMeta,
  type ClampMeta,
  type HasDetails,
  META_DETAILS_KEYS,
  messageMeta,
  type ObservationStatus,
  type ResultMeta,
  type RetryMeta,
  readMeta,
  resultMeta,
  type TimeoutMeta,
  withMeta,
  withResultMeta,
} from "./result-meta.ts";

// Content blocks and messages, their one size measure, and the tool tags plugins match on.
export { type AgentMessageLike, type AssistantBlock, type ContentBlock, contentText, type ImageBlock, type TextBlock, textContent } from "./content.ts";
export { blockChars, CHARS_PER_TOKEN, contentBytes, contentChars, estimateTokens, IMAGE_CHARS, messageChars, messagesChars, utf8Bytes } from "./size.ts";
export { hasTag, KOTA_TAG, MCP_TAG, mcpServerTag, REHYDRATION_TAG, STATUS_TAG, serverOfTags, serverTag } from "./tags.ts";
// pi's own MCP tools (`mcp__<server>__<tool>`), which the host reports in `host_tool_end` events.
export { piMcpNextStep, piMcpServerOf } from "./pi-mcp.ts";
// One identity for an MCP server's tool, whichever side runs the server (rules match every spelling).
export type { McpReach, McpToolIdentity } from "./tool-types.ts";
export {
  mcpNormalized,
  mcpSpellings,
  PI_BUILTIN_TOOLS,
  PI_MCP_RESOURCE_TOOLS,
  piMcpIdentity,
  resourceCallReach,
} from "./tool-identity.ts";
// Text shown to a person, with control characters made visible.
export { visible, visibleLines } from "./visible.ts";

// Config: the bounds every plugin schema uses, and the config file facts messages name.
export {
  boundedRecord,
  MAX_CONFIG_ENTRIES,
  MAX_PATH_CHARS,
  MAX_TEXT_CHARS,
  MAX_TOOL_NAME_CHARS,
  pathSchema,
  textSchema,
  toolListSchema,
  toolNameSchema,
} from "./config/bounds.ts";
export { agentDirFrom, ALLOW_PROJECT_LINE, CONFIG_FILE } from "./config/files.ts";

// Reading a file a repository or another user may have planted: bounded, no links followed.
export { absolutePathEntries, absoluteSearchPath } from "./search-path.ts";
export {
  type BoundedReadOptions,
  type CheckedOpenOptions,
  currentUid,
  openCheckedFileSync,
  readBoundedFileSync,
  SAFE_READ_FLAGS,
  UnsafeFileError,
} from "./safe-file.ts";

// A command a plugin ships for the `pi-governor` command line, and the checks it adds to the doctor.
export { configuredPath, type CliCommand, type CliContext, type CliIO } from "./cli-command.ts";
export type { DoctorCheckContext, DoctorCheckResult, DoctorChecks, DoctorCheckStatus } from "./doctor-check.ts";
export { CANNOT_READ_EXIT, parseCommandArgs, USAGE_EXIT } from "./cli-args.ts";

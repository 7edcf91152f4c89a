/**
 * The plugin SDK, the package's `pi-governor` export: what a plugin or preset author needs from the
 * kernel and nothing more (at most 40 runtime names, which `test/unit/core/index.test.ts` holds).
 * What runs plugins is the host entry (`host/index.ts`, `pi-governor/host`); what tests them is the
 * testing kit (`testing/index.ts`, `pi-governor/testing`). Helpers that plugins in this repository
 * share are imported from the file that declares them (`lib/<name>/index.ts` or a kernel file), not
 * from here.
 *
 * Every name below carries its documentation at its declaration; the groups say what each is for.
 */

// The plugin contract: a plugin is a `{ name, apply }` object built by a factory beside its zod
// schema; a preset is a list of plugins. Presets merge their overrides into a plugin's defaults.
export type { DeepPartial } from "./config/merge.ts";
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
export { CONTEXT_STAGE, DEFAULT_STAGE, EVENT_STAGE, GATE_STAGE, INJECT_STAGE, LIFECYCLE_STAGE, RESULT_STAGE, TOOL_STAGE } from "./stages.ts";
export type {
  CommandContext,
  ContextInfo,
  ContextMessages,
  GovernedToolDefinition,
  GovernorCommand,
  Injection,
  McpReach,
  McpToolIdentity,
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
export type {
  BoundaryDraft,
  ContextEditDraft,
  RecordDraft,
  SessionEdit,
  SessionMessageEntry,
  SessionRecord,
  TurnBoundaryInfo,
} from "./context-edits.ts";
// The provider's prompt cache: its lifetime and warming on the `context` event, and the host's cache
// warming decisions a `cacheWarming` tap may change (pi 0.87+).
export type { CacheWarmingAction, CacheWarmingInfo, PromptCacheInfo } from "./prompt-cache.ts";

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
  type OffBecause,
  type ServiceKey,
  type SessionStore,
  systemClock,
  type UiBridge,
} from "./services.ts";
// What a status or doctor plugin reads about the governor its pipeline belongs to.
export { type Governor, governorOf } from "./governor.ts";

// Observations (what a governed call ends in), errors with stable codes and their classification.
export {
  type ErrorObservation,
  failure,
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
  GovernorError,
  type GovernorErrorCode,
  type GovernorErrorOptions,
  InvalidInputError,
  isGovernorError,
  McpError,
  NetworkError,
  PipelineError,
  PluginError,
  RateLimitError,
  SpawnError,
  TimeoutError,
  UnknownError,
} from "./errors.ts";
export { type ClassifyContext, classifyError } from "./classify.ts";

// Result metadata stages hand on, typed (budget, blob, pin, retry, circuit, timeout).
export {
  type BlobMeta,
  type BudgetMeta,
  type CallMeta,
  type CircuitMeta,
  type ClampMeta,
  type HasDetails,
  messageMeta,
  type ObservationStatus,
  type ResultMeta,
  type RetryMeta,
  resultMeta,
  type TimeoutMeta,
  withResultMeta,
} from "./result-meta.ts";

// Content blocks and messages.
export { type AgentMessageLike, type AssistantBlock, type ContentBlock, contentText, type ImageBlock, type TextBlock, textContent } from "./content.ts";

// The checks a plugin adds to the doctor.
export type { DoctorCheckContext, DoctorCheckResult, DoctorChecks, DoctorCheckStatus } from "./doctor-check.ts";

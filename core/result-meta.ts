/**
 * What the stages write and read about a tool result, typed: how the call ended, the byte budget,
 * the stored blob, the pin, and the retry, circuit and timeout facts. Stages hand it on through
 * {@link ToolObservation.meta} (tool-call wrappers) and {@link resultMeta}/{@link withResultMeta}
 * (`toolResult` transforms), and read it from messages with {@link messageMeta} (`context` hook).
 *
 * pi persists a result's `details` JSON in the session file. {@link readMeta} and {@link withMeta}
 * are the one place that maps the record to and from that JSON. The JSON keys are the ones
 * pi-governor has always written (`governor`, `error`, `budget`, `truncated`/`blobId`/`blobPath`/
 * `originalBytes`/`excerptBytes`/`blobError`, `pinned`, `retry`, `circuit`, `timeoutMs`,
 * `timeoutScope`), so session files written by older versions resume unchanged. Reading is
 * defensive: details are untrusted JSON, and a field of the wrong shape is ignored, never thrown on.
 */
import type { AgentMessageLike } from "./content.ts";

/** How a governed call ended (details key `governor`). */
export interface CallMeta {
  /** SUCCESS, ERROR or TIMEOUT. */
  status: ObservationStatus;
  /** Wall time of the whole call including retries, in whole milliseconds. */
  durationMs: number;
  /** Retries that ran (attempts - 1). */
  retries: number;
}

/** One argument the budget lowered to its cap. */
export interface ClampMeta {
  /** The argument's name. */
  arg: string;
  /** The value the call asked for. */
  from: number;
  /** The cap it ran with. */
  to: number;
}

/** How a governed call ended (the `status` of a ToolObservation). */
export type ObservationStatus = "SUCCESS" | "TIMEOUT_EXCEEDED" | "ERROR";

/** What the budget stage decided (details key `budget`). */
export interface BudgetMeta {
  /** The tool's budget as one byte limit (UTF-8 bytes); the blobs stage cuts answers above it. */
  maxBytes: number;
  /** Arguments lowered to their caps before the call. */
  clamped?: ClampMeta[];
  /** Every request of the downshift ladder: the argument change ("" = original) and the answer's bytes (null = failed). */
  downshift?: Array<{ change: string; bytes: number | null }>;
  /** Index into `downshift` of the answer shown. */
  shown?: number;
  /** Whether the answer shown fits the budget. */
  fitted?: boolean;
}

/** The stored output a result points to (details keys `truncated`, `blobId`, `blobPath`, ...). */
export interface BlobMeta {
  /** True when the result is a cut excerpt of that output; false when it only names it (a `blob_read` page). */
  truncated: boolean;
  /** sha256 id (64 hex) of the stored output; absent when storing failed. */
  id?: string;
  /** Absolute path of the stored output. */
  path?: string;
  /** UTF-8 bytes of the full output. */
  originalBytes?: number;
  /** UTF-8 bytes of the excerpt the model sees. */
  excerptBytes?: number;
  /** Why the full output was not stored, when it was not (an errno code or a message). */
  error?: string;
}

/** Why retrying stopped, and how many retries ran (details key `retry`). */
export interface RetryMeta {
  /** Retries that ran (attempts - 1). */
  retries: number;
  /** `not_transient`, `max_attempts`, `budget`, `deadline`, `retry_after_too_long` or `aborted`. */
  stoppedBy?: string;
}

/** The circuit that refused a call (details key `circuit`). */
export interface CircuitMeta {
  /** The tool, or with scope "server" the server, the circuit guards. */
  key: string;
  /** The circuit's state when it refused: `open` or `half_open`. */
  state: string;
  /** Milliseconds until a trial call is let through. */
  retryInMs: number;
}

/** The limit that expired (details keys `timeoutMs`, `timeoutScope`). */
export interface TimeoutMeta {
  /** The limit, in milliseconds. */
  limitMs?: number;
  /** Which limit: `attempt` (one attempt) or `total` (the whole call with retries). */
  scope?: string;
}

/** Everything stages know about one result. Every field is optional: absent = nothing to say. */
export interface ResultMeta {
  /** How the governed call ended (details key `governor`). */
  call?: CallMeta;
  /** The error of an ERROR result, as {@link GovernorError.toJSON} wrote it (details key `error`). */
  error?: Readonly<Record<string, unknown>>;
  /** The byte budget and what the budget did (details key `budget`). */
  budget?: BudgetMeta;
  /** The stored output the result points to (details keys `truncated`, `blobId`, ...). */
  blob?: BlobMeta;
  /** Never pruned (details key `pinned`). */
  pinned?: boolean;
  /** Why retrying stopped. */
  retry?: RetryMeta;
  /** The circuit that refused the call. */
  circuit?: CircuitMeta;
  /** The limit that expired. */
  timeout?: TimeoutMeta;
}

/** The details JSON keys the record maps to (never dropped to keep details small); every other key belongs to the tool. */
export const META_DETAILS_KEYS = [
  "governor",
  "error",
  "budget",
  "truncated",
  "blobId",
  "blobPath",
  "originalBytes",
  "excerptBytes",
  "blobError",
  "pinned",
  "retry",
  "circuit",
  "timeoutMs",
  "timeoutScope",
] as const;

const EMPTY: ResultMeta = Object.freeze({});
const STATUSES: ReadonlySet<string> = new Set(["SUCCESS", "TIMEOUT_EXCEEDED", "ERROR"]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const count = (v: unknown): number | undefined => (isCount(v) ? v : undefined);

/** Copies the defined values of `fields` onto `target`. */
function defined<T extends object>(target: T, fields: Partial<T>): T {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) (target as Json)[k] = v;
  return target;
}

/**
 * The record stored in pi's `details` JSON (any value; non-objects and fields of the wrong shape are
 * ignored). Reads both what current stages write and the keys older versions wrote, which are the same.
 */
export function readMeta(details: unknown): ResultMeta {
  if (!isObject(details)) return EMPTY;
  const meta: ResultMeta = {};
  const g = details.governor;
  if (isObject(g) && typeof g.status === "string" && STATUSES.has(g.status)) {
    meta.call = { status: g.status as ObservationStatus, durationMs: count(g.durationMs) ?? 0, retries: count(g.retries) ?? 0 };
  }
  if (isObject(details.error)) meta.error = details.error;
  const b = details.budget;
  if (isObject(b) && isCount(b.maxBytes)) {
    meta.budget = defined<BudgetMeta>(
      { maxBytes: b.maxBytes },
      {
        clamped: Array.isArray(b.clamped)
          ? (b.clamped.filter(
              (c) => isObject(c) && typeof c.arg === "string" && typeof c.from === "number" && typeof c.to === "number",
            ) as unknown as ClampMeta[])
          : undefined,
        downshift: Array.isArray(b.downshift)
          ? b.downshift.filter(isObject).map((d) => ({ change: str(d.change) ?? "", bytes: count(d.bytes) ?? null }))
          : undefined,
        shown: count(b.shown),
        fitted: typeof b.fitted === "boolean" ? b.fitted : undefined,
      },
    );
  }
  const truncated = details.truncated === true;
  const blobId = str(details.blobId);
  if (truncated || blobId !== undefined) {
    meta.blob = defined<BlobMeta>(
      { truncated },
      {
        id: blobId,
        path: str(details.blobPath),
        originalBytes: count(details.originalBytes),
        excerptBytes: count(details.excerptBytes),
        error: str(details.blobError),
      },
    );
  }
  if (details.pinned === true) meta.pinned = true;
  const r = details.retry;
  if (isObject(r) && isCount(r.retries)) meta.retry = defined<RetryMeta>({ retries: r.retries }, { stoppedBy: str(r.stoppedBy) });
  const c = details.circuit;
  if (isObject(c) && typeof c.key === "string" && typeof c.state === "string")
    meta.circuit = { key: c.key, state: c.state, retryInMs: count(c.retryInMs) ?? 0 };
  const limitMs = count(details.timeoutMs);
  const scope = str(details.timeoutScope);
  if (limitMs !== undefined || scope !== undefined) meta.timeout = defined<TimeoutMeta>({}, { limitMs, scope });
  return meta;
}

/**
 * A copy of `details` with `patch` written in the details JSON shape. A field the patch leaves
 * undefined keeps its value; `pinned: false` and `blob.truncated: false` remove the marks. Never
 * changes `details` (pi and other extensions may hold it).
 */
export function withMeta(details: Readonly<Record<string, unknown>> | undefined, patch: ResultMeta): Record<string, unknown> {
  const out: Json = { ...(details ?? {}) };
  if (patch.call) out.governor = { status: patch.call.status, durationMs: Math.round(patch.call.durationMs), retries: patch.call.retries };
  if (patch.error) out.error = patch.error;
  if (patch.budget) out.budget = defined<Json>({}, patch.budget as unknown as Json);
  if (patch.blob) {
    const blob = patch.blob;
    if (blob.truncated) out.truncated = true;
    else delete out.truncated;
    for (const [key, value] of [
      ["blobId", blob.id],
      ["blobPath", blob.path],
      ["blobError", blob.error],
      ["originalBytes", blob.originalBytes],
      ["excerptBytes", blob.excerptBytes],
    ] as const) {
      if (value !== undefined) out[key] = value;
    }
  }
  if (patch.pinned === true) out.pinned = true;
  else if (patch.pinned === false) delete out.pinned;
  if (patch.retry) out.retry = defined<Json>({}, patch.retry as unknown as Json);
  if (patch.circuit) out.circuit = { ...patch.circuit };
  if (patch.timeout) defined(out, { timeoutMs: patch.timeout.limitMs, timeoutScope: patch.timeout.scope });
  return out;
}

/** Anything that carries pi's `details` (a ToolResultValue, a tool result message). */
export interface HasDetails {
  /** pi's JSON details, as pi persists them. */
  readonly details: Record<string, unknown> | undefined;
}

/** The typed record of a `toolResult` value (read from its details; cheap, no cache needed). */
export function resultMeta(value: HasDetails): ResultMeta {
  return readMeta(value.details);
}

/** A copy of `value` whose details carry `patch` (see {@link withMeta}). */
export function withResultMeta<V extends HasDetails>(value: V, patch: ResultMeta): V {
  return { ...value, details: withMeta(value.details, patch) };
}

const messageCache = new WeakMap<object, ResultMeta>();

/**
 * The record of a message of the `context` hook: a tool result's details read once per message
 * object (cached, so the blobs and prune taps of one context event share the reading); an empty
 * record for other messages. Messages are treated as immutable: a stage that changes one makes a
 * new object, which is read afresh.
 */
export function messageMeta(message: AgentMessageLike): ResultMeta {
  if (message.role !== "toolResult") return EMPTY;
  let meta = messageCache.get(message);
  if (!meta) {
    meta = readMeta((message as { details?: unknown }).details);
    messageCache.set(message, meta);
  }
  return meta;
}

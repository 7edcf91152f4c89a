/**
 * Reads a pi session file (JSONL, session-format.md) into the model calls it recorded.
 *
 * The active branch is the path from the last entry back to the root via `parentId` (pi's leaf is the
 * newest entry). Along it, the context is built as pi builds it: messages in order, branch summaries
 * and custom messages as messages, and at a compaction the summary followed by the kept messages
 * (from `firstKeptEntryId`). Every assistant message marks one model call whose prompt was the
 * context just before it, except a call that failed before reaching a model (an error with no
 * usage, or aborted before any output): nothing was sent or billed, so it is not counted. Each call
 * has its time (the reply's timestamp) and the cache warming refreshes pi recorded before it (`usage`
 * entries of kind `cache_warm`, pi 0.87 and later), so the replay can price cache expiry.
 *
 * Malformed lines are reported (with their line number) and skipped; reading goes on. Memory is
 * linear in the file: the model calls share one context list (see {@link sharedPrefix}), a line that
 * cannot be used is counted and dropped, and a session is read to at most {@link MAX_SESSION_ENTRIES}
 * entries and {@link MAX_REPLAYED_CALLS} model calls, saying so.
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { type SessionReadOptions, sessionLines } from "./session-read.ts";

/** One recorded model call. */
export interface RecordedRequest {
  /** 1-based turn (user prompts seen so far on the branch). */
  readonly turn: number;
  /**
   * The context sent, in order: a fresh array on each read, of messages shared between requests
   * (same objects). A request holds only where its context ends in a shared list (see {@link sharedPrefix}).
   */
  readonly messages: AgentMessageLike[];
  /** When it was sent (ms since the epoch): the reply's timestamp, when the file has one. */
  at?: number;
  /** Times (ms) of the cache warming refreshes pi recorded since the previous call (`usage` entries of kind `cache_warm`). */
  warms?: number[];
}

/**
 * A request whose context is the first `length` messages of `shared`, a list only ever appended to:
 * consecutive model calls share one list, so a session of N calls holds its messages once, not N
 * times (a per-call copy made memory grow with the square: 40,000 calls of a 10 MB file took 4 GB).
 */
export function sharedPrefix(
  turn: number,
  shared: readonly AgentMessageLike[],
  length: number,
  extra: Pick<RecordedRequest, "at" | "warms"> = {},
): RecordedRequest {
  return {
    turn,
    ...extra,
    get messages() {
      return shared.slice(0, length) as AgentMessageLike[];
    },
  };
}

/**
 * Most model calls replayed per session: the first ones; a longer session is replayed that far and
 * says so. Each call's prompt is its whole context, so replaying costs the square of a session's
 * length in time (the policies see every prompt), whatever the memory.
 */
export const MAX_REPLAYED_CALLS = 10_000;
/** Most entries read per session (a longer file is read that far and says so): memory per entry is bounded by the file's size. */
export const MAX_SESSION_ENTRIES = 500_000;
/** Most messages copied at compactions per session (a compaction keeps part of the context: a new list). */
const MAX_COMPACTION_COPIES = 5_000_000;

/** A parsed session file. */
export interface ParsedSession {
  path: string;
  requests: RecordedRequest[];
  /** Lines that could not be used, as "line N: why". */
  problems: string[];
  /** Entries in the file and on the active branch. */
  entries: number;
  branchEntries: number;
  /** Assistant messages not counted as model calls: they failed before reaching a model. */
  failedCalls?: number;
  /** Cache warming refreshes pi recorded after the last call (ms): the user did not come back in time. */
  trailingWarms?: number[];
}

/** Unusable lines listed one by one; the rest are counted in one problem. */
const MAX_LISTED_LINE_PROBLEMS = 100;

/** Token counts of an assistant message's usage, summed; 0 when it has none. */
function usageTokens(usage: unknown): number {
  if (!usage || typeof usage !== "object") return 0;
  const u = usage as Record<string, unknown>;
  return ["input", "output", "cacheRead", "cacheWrite", "totalTokens"].reduce(
    (sum, k) => sum + (typeof u[k] === "number" && Number.isFinite(u[k]) ? Math.max(u[k] as number, 0) : 0),
    0,
  );
}

/** True when the message has any output: text, thinking or a tool call. */
function hasOutput(content: unknown): boolean {
  if (typeof content === "string") return content.length > 0;
  if (!Array.isArray(content)) return false;
  return content.some(
    (b: { type?: unknown; text?: unknown; thinking?: unknown } | null) =>
      (b?.type === "text" && typeof b.text === "string" && b.text.length > 0) ||
      (b?.type === "thinking" && typeof b.thinking === "string" && b.thinking.length > 0) ||
      b?.type === "toolCall",
  );
}

/**
 * True for an assistant message of a call that failed before reaching a model: `stopReason`
 * "error" with no usage (a refused key, a network error), or "aborted" before any output and usage.
 */
export function failedBeforeModel(message: AgentMessageLike): boolean {
  if (message.role !== "assistant") return false;
  const m = message as { stopReason?: unknown; usage?: unknown; content?: unknown };
  if (usageTokens(m.usage) > 0) return false;
  if (m.stopReason === "error") return true;
  return m.stopReason === "aborted" && !hasOutput(m.content);
}

/** `text` with control characters (escape sequences a terminal would act on) shown as `?`. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}

type Entry = { type?: unknown; id?: unknown; parentId?: unknown; message?: unknown; [k: string]: unknown };

function entryMessage(e: Entry): AgentMessageLike | undefined {
  switch (e.type) {
    case "message": {
      const m = e.message as { role?: unknown; excludeFromContext?: unknown } | undefined;
      if (!m || typeof m !== "object" || typeof m.role !== "string") return undefined;
      // pi 0.74+ records the system prompt and tool declarations as `system` messages; the
      // `context` event (what pruning transforms) never carries them.
      if (m.role === "system") return undefined;
      // `!!` commands are recorded but never sent to the model.
      return m.role === "bashExecution" && m.excludeFromContext === true ? undefined : (m as AgentMessageLike);
    }
    case "custom_message":
      return { role: "custom", customType: e.customType, content: e.content ?? "", display: e.display, timestamp: Date.parse(String(e.timestamp)) || 0 };
    case "branch_summary":
      return { role: "branchSummary", summary: String(e.summary ?? ""), fromId: e.fromId, timestamp: Date.parse(String(e.timestamp)) || 0 };
    default:
      return undefined;
  }
}

/**
 * Brings parsed entries (header included, in file order) to the current session format in place:
 * pi's own `migrateSessionEntries` when pi is installed (it gives version 1 entries their ids and
 * parent links, and renames old roles). See pi-session-format.ts.
 */
export type SessionMigration = (entries: object[]) => void;

/**
 * Parses session text. `path` only names the source in problems. `migrate` (pi's migration) lets
 * older session versions replay; without it, entries lacking an id are reported and skipped.
 */
export function parseSession(text: string, path = "<session>", migrate?: SessionMigration): ParsedSession {
  return parseSessionLines(text.split("\n"), path, migrate);
}

/** {@link parseSession} over the lines of a session, as {@link sessionLines} reads them from a file. */
export function parseSessionLines(lines: Iterable<string>, path = "<session>", migrate?: SessionMigration): ParsedSession {
  const problems = new SessionProblems();
  const parsed = parseLines(lines, problems);
  const { byId, order } = indexEntries(parsed, migrate, problems);
  const branch = activeBranch(byId, order, problems.list);
  const { requests, failedCalls, warms } = modelCalls(branch, problems.list);
  return {
    path,
    requests,
    problems: problems.list,
    entries: order.length,
    branchEntries: branch.length,
    ...(failedCalls ? { failedCalls } : {}),
    ...(warms.length && requests.length ? { trailingWarms: warms } : {}),
  };
}

/** The problems of one read. A file of broken lines yields one problem per line: the first ones are listed, the rest counted. */
class SessionProblems {
  readonly list: string[] = [];
  unlisted = 0;

  line(text: string): void {
    if (this.list.length < MAX_LISTED_LINE_PROBLEMS) this.list.push(text);
    else this.unlisted++;
  }
}

/**
 * The JSON objects of the lines, with their line numbers, to at most {@link MAX_SESSION_ENTRIES}.
 * With a header of version 2 or later every entry has an id: one without is dropped at once, never
 * kept (200 MiB of `{}` lines must not become 70 million objects). Older files keep theirs for
 * pi's migration, which gives them ids.
 */
function parseLines(lines: Iterable<string>, problems: SessionProblems): Array<{ line: number; entry: Entry }> {
  const parsed: Array<{ line: number; entry: Entry }> = [];
  let lineNumber = 0;
  let idsRequired: boolean | undefined;
  let withoutId = 0;
  let truncatedAt = 0;
  for (const raw of lines) {
    lineNumber++;
    const line = raw.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.line(`line ${lineNumber}: not valid JSON (${printable((error as Error).message.slice(0, 200))}); skipped`);
      continue;
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      problems.line(`line ${lineNumber}: expected a JSON object; skipped`);
      continue;
    }
    const entry = value as Entry;
    if (idsRequired === undefined) idsRequired = entry.type === "session" && Number(entry.version ?? 1) >= 2;
    if (idsRequired && typeof entry.id !== "string" && entry.type !== "session") {
      if (withoutId++ < MAX_LISTED_LINE_PROBLEMS)
        problems.line(`line ${lineNumber}: entry without an id (type ${printable(String(entry.type).slice(0, 80))}); skipped`);
      continue;
    }
    if (parsed.length >= MAX_SESSION_ENTRIES) {
      truncatedAt = lineNumber;
      break;
    }
    parsed.push({ line: lineNumber, entry });
  }
  if (withoutId > MAX_LISTED_LINE_PROBLEMS)
    problems.list.push(`${(withoutId - MAX_LISTED_LINE_PROBLEMS).toLocaleString("en-US")} more entries without an id; skipped`);
  if (truncatedAt)
    problems.list.push(
      `the session has more than ${MAX_SESSION_ENTRIES.toLocaleString("en-US")} entries: replay reads the first ones (to line ${truncatedAt - 1}), the rest are left out`,
    );
  return parsed;
}

/** Migrates the entries (when pi's migration is given) and indexes those with an id, in file order; empties `parsed`. */
function indexEntries(
  parsed: Array<{ line: number; entry: Entry }>,
  migrate: SessionMigration | undefined,
  problems: SessionProblems,
): { byId: Map<string, Entry>; order: string[] } {
  const byId = new Map<string, Entry>();
  const order: string[] = [];
  if (migrate) {
    try {
      migrate(parsed.map((p) => p.entry));
    } catch (error) {
      problems.list.push(`pi could not migrate this session to the current format (${printable((error as Error).message)}); reading it as it is`);
    }
  }
  let sawHeader = false;
  const header = parsed.find((p) => p.entry.type === "session")?.entry;
  const oldFormat = !migrate && !(Number(header?.version ?? 1) >= 2);
  for (const { line, entry: e } of parsed) {
    if (e.type === "session") {
      sawHeader = true;
      continue;
    }
    if (typeof e.id !== "string") {
      problems.line(
        `line ${line}: entry without an id (type ${printable(String(e.type).slice(0, 80))}); skipped${oldFormat ? " (a session format before version 2: install pi so replay can use its migration)" : ""}`,
      );
      continue;
    }
    if (e.type === "message" && typeof (e.message as { role?: unknown } | undefined)?.role !== "string") {
      problems.line(`line ${line}: message entry without a message role; skipped`);
      continue;
    }
    byId.set(e.id, e);
    order.push(e.id);
  }
  parsed.length = 0;
  if (problems.unlisted) problems.list.push(`${problems.unlisted} more line(s) could not be used; skipped`);
  if (!sawHeader && order.length) problems.list.unshift("no session header line; reading the entries anyway");
  return { byId, order };
}

/** The path from the leaf (the newest entry) to the root, root first. */
function activeBranch(byId: ReadonlyMap<string, Entry>, order: readonly string[], problems: string[]): Entry[] {
  const branch: Entry[] = [];
  const seen = new Set<string>();
  let id: unknown = order[order.length - 1];
  while (typeof id === "string" && byId.has(id) && !seen.has(id)) {
    seen.add(id);
    const e = byId.get(id)!;
    branch.push(e);
    id = e.parentId;
  }
  if (typeof id === "string" && !byId.has(id))
    problems.push(`entry ${printable(id.slice(0, 80))} (a parent on the active branch) is missing; the branch starts after it`);
  branch.reverse();
  return branch;
}

/** The model calls along the branch, each with the context pi sent, to at most {@link MAX_REPLAYED_CALLS}. */
function modelCalls(branch: readonly Entry[], problems: string[]): { requests: RecordedRequest[]; failedCalls: number; warms: number[] } {
  const requests: RecordedRequest[] = [];
  // The context so far: appended to between compactions and shared by the requests made meanwhile.
  let context: AgentMessageLike[] = [];
  let contextIds: string[] = [];
  let turn = 0;
  let failedCalls = 0;
  let warms: number[] = [];
  let calls = 0;
  let copied = 0;
  let stoppedAt: string | undefined;
  for (const e of branch) {
    if (e.type === "usage" && e.kind === "cache_warm") {
      const at = Date.parse(String(e.timestamp));
      if (Number.isFinite(at) && calls < MAX_REPLAYED_CALLS) warms.push(at);
      continue;
    }
    if (e.type === "compaction") {
      const kept = typeof e.firstKeptEntryId === "string" ? contextIds.indexOf(e.firstKeptEntryId) : -1;
      copied += kept < 0 ? 1 : context.length - kept + 1;
      if (copied > MAX_COMPACTION_COPIES) {
        stoppedAt = `its compactions keep more than ${MAX_COMPACTION_COPIES.toLocaleString("en-US")} messages in all`;
        break;
      }
      const summary: AgentMessageLike = {
        role: "compactionSummary",
        summary: String(e.summary ?? ""),
        tokensBefore: e.tokensBefore,
        timestamp: Date.parse(String(e.timestamp)) || 0,
      };
      context = [summary, ...(kept < 0 ? [] : context.slice(kept))];
      contextIds = [e.id as string, ...(kept < 0 ? [] : contextIds.slice(kept))];
      continue;
    }
    const m = entryMessage(e);
    if (!m) continue;
    if (m.role === "assistant") {
      if (failedBeforeModel(m)) failedCalls++;
      else if (++calls <= MAX_REPLAYED_CALLS) {
        const stamp = (m as { timestamp?: unknown }).timestamp;
        const at = typeof stamp === "number" && Number.isFinite(stamp) && stamp > 0 ? stamp : Date.parse(String(e.timestamp));
        requests.push(sharedPrefix(turn, context, context.length, { ...(Number.isFinite(at) ? { at } : {}), ...(warms.length ? { warms } : {}) }));
        warms = [];
      }
    }
    if (m.role === "user") turn++;
    contextIds.push(e.id as string);
    context.push(m);
  }
  if (calls > MAX_REPLAYED_CALLS)
    problems.push(
      `replay reads the first ${MAX_REPLAYED_CALLS.toLocaleString("en-US")} model calls of a session; this one has ${calls.toLocaleString("en-US")}: the rest are not replayed`,
    );
  if (stoppedAt) problems.push(`replay stops at model call ${requests.length + 1} of this session: ${stoppedAt}`);
  if (failedCalls)
    problems.push(`${failedCalls} model call(s) failed before reaching a model (an error without usage, or aborted before any output); not counted`);
  return { requests, failedCalls, warms };
}

/**
 * Reads and parses a session file: its kind and size are checked before it is read, and it is read in
 * chunks (session-read.ts). Throws with a clear message when the file is refused or cannot be read.
 */
export function readSessionFile(path: string, migrate?: SessionMigration, options: SessionReadOptions = {}): ParsedSession {
  return parseSessionLines(sessionLines(path, options), path, migrate);
}

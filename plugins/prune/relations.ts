/**
 * Result relations: which tool results a later call made redundant (a duplicate) or wrong (a stale
 * read), judged only from the messages before a boundary so the answer changes only when the
 * boundary moves.
 *
 * - Duplicate: a call repeated later with the same tool and arguments (canonical JSON, keys sorted)
 *   whose newer result completed. The older result names the newest such call. A failed newer call
 *   does not supersede a successful older one; a failed older one is superseded by any newer one.
 * - Stale: a `readTools` result of file P followed (by call position) by a call that changes P: a
 *   `writeTools` call on P whose result is not an error, or a `bash` command naming P in a part that
 *   is not read-only (bash-paths.ts), whatever its exit status (a failing command may still have
 *   changed the file). It names the first such call after the read.
 *
 * Pinned results, calls on protected paths and results that are already placeholders are never
 * related. When both apply, duplicate wins. One pass to index, one backwards pass per relation,
 * Maps by key and path: linear in the messages (and in the bash commands' bounded lengths).
 * Malformed messages (no content, non-object arguments, non-string ids) are skipped, never thrown on.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import { canonicalJson } from "../../lib/json/index.ts";
import { bashChangedPaths } from "./bash-paths.ts";
import { callPath, normalizePath } from "../../lib/context/index.ts";
import type { ResultRelation } from "./placeholder.ts";
import { isPrunedMessage } from "./pruned-mark.ts";

export { canonicalJson };

/** What to relate (the prune config's `dedup`, `staleReads`, `readTools`, `writeTools`, `protectedFilePatterns`). */
export interface RelationOptions {
  /** Find duplicates (prune config `dedup`, default true). */
  dedup: boolean;
  /** Find stale reads (prune config `staleReads`, default true). */
  staleReads: boolean;
  /** Tools whose result is the text of the file in their path argument (default `read`). */
  readTools: ReadonlySet<string>;
  /** Tools that change the file in their path argument (default `edit`, `write`). */
  writeTools: ReadonlySet<string>;
  /** true for a path that matches protectedFilePatterns (see paths.ts protectedPathMatcher). */
  isProtected: (path: string) => boolean;
  /** Session cwd, to compare absolute and relative spellings of one path (paths.ts normalizePath). */
  cwd?: string;
}

/**
 * How a result relates to a later call: `duplicate` names the newest repeat of the call; `stale`
 * names the file (normalized, relative to cwd when inside it) and the first call that changed it.
 */
export type { ResultRelation };

/** The tool whose `command` argument is read for paths it changes. */
const BASH_TOOL = "bash";
/** A completed call: its block in an assistant message and its result before the boundary. */
interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result: AgentMessageLike;
  isError: boolean;
  /** The result is already a placeholder: never related, and not "the current result" of anything. */
  placeholder: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The completed calls of messages[0, upTo), in call order (first occurrence of an id wins). */
function completedCalls(messages: readonly AgentMessageLike[], upTo: number): Call[] {
  const end = Math.max(0, Math.min(upTo, messages.length));
  const results = new Map<string, AgentMessageLike>();
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (!isRecord(m) || m.role !== "toolResult") continue;
    const id = (m as { toolCallId?: unknown }).toolCallId;
    if (typeof id === "string" && !results.has(id)) results.set(id, m);
  }
  const calls: Call[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (!isRecord(m) || m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content as unknown[]) {
      if (!isRecord(b) || b.type !== "toolCall" || typeof b.id !== "string" || typeof b.name !== "string" || !isRecord(b.arguments)) continue;
      const result = results.get(b.id);
      if (!result || seen.has(b.id)) continue;
      seen.add(b.id);
      calls.push({
        id: b.id,
        name: b.name,
        args: b.arguments,
        result,
        isError: (result as { isError?: unknown }).isError === true,
        placeholder: isPrunedMessage(result),
      });
    }
  }
  return calls;
}

/** Results that may be related: not pinned, not on a protected path, not a placeholder already. */
function eligible(call: Call, options: RelationOptions): boolean {
  if (call.placeholder || messageMeta(call.result).pinned === true) return false;
  const path = callPath(call.args);
  return path === undefined || !options.isProtected(path);
}

function markDuplicates(calls: readonly Call[], options: RelationOptions, out: Map<string, ResultRelation>): void {
  const newestOk = new Map<string, string>();
  const newestAny = new Map<string, string>();
  for (let k = calls.length - 1; k >= 0; k--) {
    const call = calls[k]!;
    const json = canonicalJson(call.args);
    if (json === undefined) continue;
    const key = `${call.name}\u0000${json}`;
    const newer = newestOk.get(key) ?? (call.isError ? newestAny.get(key) : undefined);
    if (newer !== undefined && eligible(call, options)) out.set(call.id, { kind: "duplicate", newerCallId: newer });
    if (call.placeholder) continue; // supersedes nothing
    if (!newestAny.has(key)) newestAny.set(key, call.id);
    if (!call.isError && !newestOk.has(key)) newestOk.set(key, call.id);
  }
}

function markStale(calls: readonly Call[], options: RelationOptions, out: Map<string, ResultRelation>): void {
  const readPaths = new Set<string>();
  for (const call of calls) {
    const path = options.readTools.has(call.name) ? callPath(call.args) : undefined;
    if (path !== undefined) readPaths.add(normalizePath(path, options.cwd));
  }
  if (!readPaths.size) return;
  // Backwards: `firstChange` holds, per path, the first changing call after the current position.
  const firstChange = new Map<string, { id: string; tool: string }>();
  for (let k = calls.length - 1; k >= 0; k--) {
    const call = calls[k]!;
    if (options.readTools.has(call.name)) {
      const raw = callPath(call.args);
      const path = raw === undefined ? undefined : normalizePath(raw, options.cwd);
      const change = path === undefined ? undefined : firstChange.get(path);
      if (path !== undefined && change && !out.has(call.id) && eligible(call, options)) {
        out.set(call.id, { kind: "stale", path, changedByCallId: change.id, changedByTool: change.tool });
      }
    }
    if (options.writeTools.has(call.name) && !call.isError) {
      const raw = callPath(call.args);
      if (raw !== undefined) firstChange.set(normalizePath(raw, options.cwd), { id: call.id, tool: call.name });
    } else if (call.name === BASH_TOOL && typeof call.args.command === "string") {
      for (const token of bashChangedPaths(call.args.command)) {
        const path = normalizePath(token, options.cwd);
        if (readPaths.has(path)) firstChange.set(path, { id: call.id, tool: call.name });
      }
    }
  }
}

/** Relations of the tool results in messages[0, upTo), judged only from messages[0, upTo); keyed by toolCallId. */
export function resultRelations(messages: readonly AgentMessageLike[], upTo: number, options: RelationOptions): Map<string, ResultRelation> {
  const out = new Map<string, ResultRelation>();
  if (!options.dedup && !options.staleReads) return out;
  const calls = completedCalls(messages, upTo);
  if (options.dedup) markDuplicates(calls, options, out);
  if (options.staleReads) markStale(calls, options, out);
  return out;
}

/**
 * Recognising the messages of the last call at the same index, cheaply.
 *
 * pi hands the `context` event a fresh deep copy of the whole history on every model call, so on a
 * long session the pruner meets thousands of objects it has never seen, each scattered in memory
 * among its (large) content. What pi guarantees instead is identity: a message is never edited once it
 * is in the history; compaction, a branch switch or a new session replace messages, and the
 * replacements carry other timestamps. So a message at the same index with the same role and
 * timestamp (and, for a tool result, the same tool call id and error flag) is the message seen there
 * before.
 *
 * The check reads only those fields, which live in the message object itself (never a content block
 * or a text), and compares them with flat arrays of numbers and interned strings kept here rather
 * than with per-message objects: on a fresh copy the cost is the one or two cache misses of touching
 * the message, not five or more.
 * Fields other roles lack are not read (a missing property is a slow lookup on a fresh object).
 * Messages without a numeric timestamp never match; the caller then compares full fingerprints.
 */
import type { AgentMessageLike } from "../../core/index.ts";

/** The known roles as string literals: comparing against an interned string is cheaper. */
function internRole(role: unknown): unknown {
  switch (role) {
    case "user":
      return "user";
    case "assistant":
      return "assistant";
    case "toolResult":
      return "toolResult";
    default:
      return role;
  }
}

/**
 * A 32-bit FNV-1a hash of a tool call id (-1 when it is not a string). Kept instead of the id: the
 * fresh copy's id sits next to its message, the kept string would be one more cache miss per message.
 */
function idHash(id: unknown): number {
  if (typeof id !== "string") return -1;
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** pi's identity of the message at each index of the last call (see the module comment). */
export class MessageIdentities {
  /** The object last recorded at each index: the same-object case costs one comparison. */
  private readonly refs: unknown[] = [];
  /** Timestamps in milliseconds; NaN (never equal) when a message has none. */
  private readonly stamps: number[] = [];
  private readonly roles: unknown[] = [];
  /** Hash of the tool call id of tool results (see `idHash`; 0 for other roles). */
  private readonly ids: number[] = [];
  /** Error flag of tool results (undefined for other roles). */
  private readonly errors: unknown[] = [];

  /** Number of indexes recorded. */
  get length(): number {
    return this.stamps.length;
  }

  /** Records `message` as the message at index `i` (i <= length). */
  record(i: number, message: AgentMessageLike): void {
    const m = message as Record<string, unknown>;
    const result = m.role === "toolResult";
    this.refs[i] = message;
    this.stamps[i] = typeof m.timestamp === "number" ? m.timestamp : Number.NaN;
    this.roles[i] = internRole(m.role);
    this.ids[i] = result ? idHash(m.toolCallId) : 0;
    this.errors[i] = result ? m.isError : undefined;
  }

  /** Whether `message` is the message recorded at index `i` (false past the end). */
  matches(i: number, message: AgentMessageLike): boolean {
    let known = true;
    this.scanRange([message], i, () => (known = false));
    return known;
  }

  /**
   * Calls `unknown(i, message)` for each message of `messages` that is not the message recorded at
   * its index (see `matches`), in index order; `unknown` may record it. Then forgets the indexes past
   * the end of `messages`. One loop over flat arrays: the cost of a long history is one visit per message.
   */
  scan(messages: readonly AgentMessageLike[], unknown: (i: number, message: AgentMessageLike) => void): void {
    this.scanRange(messages, 0, unknown);
    this.truncate(messages.length);
  }

  /** `scan` of `messages` as the messages at indexes `offset`.., without forgetting anything. */
  private scanRange(messages: readonly AgentMessageLike[], offset: number, unknown: (i: number, message: AgentMessageLike) => void): void {
    const { refs, stamps, roles, ids, errors } = this;
    const n = messages.length;
    // Comparing with a kept object that is not the same one reads its (cold) header, and reading a
    // message's identity reads the message: the cheaper order depends on whether the caller passes
    // the objects of the last call (a host without copies) or fresh copies (pi). The first message says.
    const sameObjects = n > 0 && refs[offset] === messages[0];
    let j = 0;
    if (sameObjects) {
      // The unchanged run of the same objects, in the tightest loop (one comparison per message).
      const known = Math.min(n, stamps.length - offset);
      while (j < known && refs[offset + j] === messages[j]) j++;
    }
    for (; j < n; j++) {
      const i = offset + j;
      const message = messages[j]!;
      if (i < stamps.length) {
        if (sameObjects && refs[i] === message) continue;
        const m = message as Record<string, unknown>;
        const role = roles[i];
        if (m.timestamp === stamps[i] && m.role === role && (role !== "toolResult" || (m.isError === errors[i] && idHash(m.toolCallId) === ids[i]))) continue;
        if (!sameObjects && refs[i] === message) continue;
      }
      unknown(i, message);
    }
  }

  /** Forgets the indexes from `n` on. */
  truncate(n: number): void {
    if (n >= this.stamps.length) return;
    this.refs.length = n;
    this.stamps.length = n;
    this.roles.length = n;
    this.ids.length = n;
    this.errors.length = n;
  }
}

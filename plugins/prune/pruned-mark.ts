/**
 * Which tool results pruning replaced, recognised by a mark pruning leaves on the replacement
 * message object, never by its text: a tool that prints the placeholder prefix (`(Pruned) ...`)
 * must not make its output look pruned and so escape pruning forever. The mark is process-local and
 * cannot be written by tool output, JSON details or a session file.
 */

const pruned = new WeakSet<object>();

/** Marks `message` (a replacement pruning made) as pruned; returns it. */
export function markPruned<T extends object>(message: T): T {
  pruned.add(message);
  return message;
}

/** Whether `message` is a replacement pruning made (see {@link markPruned}). */
export function isPrunedMessage(message: unknown): boolean {
  return typeof message === "object" && message !== null && pruned.has(message);
}

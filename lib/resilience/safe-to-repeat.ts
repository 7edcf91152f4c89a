/**
 * Whether running a tool call again can do no harm: the one rule both retry (after a failed
 * attempt) and the MCP manager (replaying a call after the connection was lost) apply.
 */

/** The MCP tool annotations the rule reads (pi tools and MCP tools carry the same two hints). */
export interface RepeatHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly idempotentHint?: boolean | undefined;
}

/**
 * True when the tool is marked `readOnlyHint` or `idempotentHint`, or the user listed it as safe
 * (`listed`). A tool without annotations (unknown to the server's last tools/list, say) is not safe.
 */
export function isSafeToRepeat(hints: RepeatHints | undefined, listed: boolean): boolean {
  return listed || hints?.readOnlyHint === true || hints?.idempotentHint === true;
}

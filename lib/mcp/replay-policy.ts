/** Which tools may be run again after a connection loss: repeating them cannot do harm. */
import type { McpTool } from "./connection-types.ts";

/**
 * True when `tool` is safe to repeat: the server marks it `readOnlyHint` or `idempotentHint`, or the
 * config lists it in `replayTools`. Unknown tools (not in the last tools/list) are not safe.
 */
export function isSafeToRepeat(toolName: string, tools: ReadonlyMap<string, McpTool>, allowlist: ReadonlySet<string>): boolean {
  if (allowlist.has(toolName)) return true;
  const annotations = tools.get(toolName)?.annotations;
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

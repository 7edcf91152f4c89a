/**
 * What pi-governor's `tool_result` handler hands back to pi: only the fields its stages changed.
 *
 * pi (1.x) applies a handler's answer field by field, and a `content` without `structuredContent`
 * drops the structured result (it may no longer match). Returning every field whenever one changed
 * made pi drop the whole `CallToolResult` of each MCP call whose `details` a stage annotated, so a
 * codemode script got the model's 20 KB text instead. Hence a patch: unchanged fields are left out,
 * and a changed `content` carries pi's `structuredContent` along unchanged.
 */
import type { ContentBlock } from "../../core/content.ts";

/** The part of pi's `tool_result` event a patch is computed against (pi 1.x adds the last two fields). */
export interface PiToolResultFields {
  content: unknown;
  details?: unknown;
  isError: boolean;
  /** pi 1.x: the tool's structured result (an MCP call's whole `CallToolResult`); what scripts receive. */
  structuredContent?: unknown;
  /** pi 1.x: set when another tool (a codemode script) made the call; its result goes to that tool, not the model. */
  parentToolCallId?: string;
}

/** A `tool_result` handler's answer: only the fields that change. */
export interface PiToolResultPatch {
  content?: ContentBlock[];
  details?: Record<string, unknown>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * The patch that turns `event` into `out` (the `toolResult` stages' result), or undefined when the
 * stages changed nothing. Fields are compared by identity: stages return new objects for what they change.
 */
export function resultPatch(
  event: PiToolResultFields,
  out: { content: ContentBlock[]; details: Record<string, unknown> | undefined; isError: boolean },
): PiToolResultPatch | undefined {
  const patch: PiToolResultPatch = {};
  if (out.content !== event.content) {
    patch.content = out.content;
    if (event.structuredContent !== undefined) patch.structuredContent = event.structuredContent;
  }
  if (out.details !== event.details && out.details !== undefined) patch.details = out.details;
  if (out.isError !== event.isError) patch.isError = out.isError;
  return Object.keys(patch).length ? patch : undefined;
}

/** True for a result that goes to the tool that made the call (a codemode script), not to the model. */
export function isNestedResult(event: PiToolResultFields): boolean {
  return typeof event.parentToolCallId === "string" && event.parentToolCallId !== "";
}

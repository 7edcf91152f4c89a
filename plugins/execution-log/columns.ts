/**
 * What may be written into a text column of the execution log: every text column is redacted and
 * bounded by lib/redact's {@link columnText} (the one helper the recall index uses too); calls to tools
 * pi does not have are counted under one label, so invented names never reach the file.
 */
export { columnText, MAX_COLUMN_CHARS } from "../../lib/redact/index.ts";

/** The tool name rows of calls to tools pi does not have carry (parentheses are in no tool name). */
export const UNKNOWN_TOOL_LABEL = "(unknown tool)";

/** Longest error category stored, in characters (pi-governor's categories are one short word). */
export const MAX_CATEGORY_CHARS = 64;

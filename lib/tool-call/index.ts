/** How tool calls are written for a reader: one short, deterministic line per call. */
export { DEFAULT_MAX_ARG_CHARS, DEFAULT_MAX_ARGS, formatCall } from "./format-call.ts";

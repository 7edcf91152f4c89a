/**
 * lib/redact: hides secrets (known token shapes, private key blocks, authorization headers, secret
 * assignments, the env values a user gave a server) in text before it reaches the model, the disk
 * or telemetry. Linear time on any input; see docs/security.md for what it finds and its limits.
 */
export { Redactor, placeholder, secretEnvValues, MIN_LITERAL_LENGTH, MAX_LITERALS, type RedactorOptions, type RedactionReport } from "./redactor.ts";
export { BUILTIN_RULES, BUILTIN_RULE_NAMES, type RedactionRule } from "./rules.ts";
export { checkShape, parseCharSet, shapeSource, RULE_NAME_PATTERN, MAX_SHAPE_LENGTH, type TokenShape } from "./shape.ts";
export { keyBlockSpans, MAX_KEY_BLOCK_CHARS } from "./key-blocks.ts";
export { redactArgs, redactedCommandLine, secretArgValues } from "./argv.ts";
export { redactValue } from "./deep.ts";
export { builtinRedactor, redactorForWrites, type TextRedactor } from "./written.ts";
export { columnText, cutText, MAX_COLUMN_CHARS } from "./column-text.ts";
export { cutEdgeSpans, CUT_WINDOW_CHARS, type OutputEnds } from "./cut-edges.ts";
export type { Span } from "./key-blocks.ts";

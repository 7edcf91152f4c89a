/**
 * `@mariozechner/pi-ai` (pi 0.73's name) in this repository's type check: pi-ai's compat entry, which
 * the name resolves to at run time too (vitest.config.ts), with the faux helper's arguments typed as
 * pi 0.73 typed them (any record; pi 1.x requires JSON values), so tests written against the 0.73
 * names compile unchanged. Tests that import `@earendil-works/pi-ai` get pi 1.6's own types.
 */
import type { ToolCall } from "@earendil-works/pi-ai/compat";

export * from "@earendil-works/pi-ai/compat";

export declare function fauxToolCall(name: string, arguments_: Record<string, unknown>, options?: { id?: string }): ToolCall;

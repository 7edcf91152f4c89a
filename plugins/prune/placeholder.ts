/**
 * The text that replaces a pruned tool result. It is a pure function of the result (tool name,
 * arguments, size, blob id), never of time or position, so the same result always prunes to the same
 * bytes: a provider's prompt cache keeps matching the prefix across model calls.
 *
 * It names the tool, its key arguments, and the exact way back: `blob_read({"blobId":"..."})` when
 * the blobs plugin stored the full output (the id's first 12 hex digits; how to page or grep it is
 * said once, in blob_read's description), otherwise how to re-run the call narrower. Every placeholder
 * is resent on every later request, so each word is a cost that repeats.
 *
 * Which arguments come first and how a tool's result is re-fetched are data (`prune.perTool`): pi's
 * built-in tools have defaults, a preset adds its own tools.
 */
import { DEFAULT_MAX_ARG_CHARS as MAX_ARG_CHARS, formatCall } from "../../lib/tool-call/index.ts";
import { blobReadCall } from "../blobs/index.ts";
import type { PlaceholderHint } from "./config.ts";

/** Prefix every placeholder starts with; also how pruned results are recognised. */
export const PRUNED_PREFIX = "(Pruned) ";

/** Short style: arguments shown and their length cap. */
const SHORT_ARGS = 2;
const SHORT_ARG_CHARS = 60;

/** What a placeholder is built from. */
export interface PlaceholderInput {
  toolName: string;
  /** The call's arguments, from the assistant's tool call (undefined when the call is not in view). */
  args: Readonly<Record<string, unknown>> | undefined;
  /** Characters of the original result (see size.ts). */
  chars: number;
  /** Image blocks in the original result. */
  images: number;
  isError: boolean;
  /** `meta.blob.id` of the result, when the blobs plugin stored the full output. */
  blobId: string | undefined;
  /** "short" (adaptive mode): fewer arguments and a terse way back. Default "full". */
  style?: "full" | "short";
  /** The tool's key arguments and way back (`prune.perTool`); none: call order, "re-run narrower". */
  hint?: PlaceholderHint | undefined;
}

/** The placeholder text for one pruned result. */
export function placeholderText(input: PlaceholderInput): string {
  if (input.style === "short") {
    const call = formatCall(input.toolName, input.args, input.hint?.argOrder, SHORT_ARGS, SHORT_ARG_CHARS);
    const back = input.blobId ? blobReadCall(input.blobId) : "re-run narrower";
    return `${PRUNED_PREFIX}${call}${input.isError ? " [error]" : ""}; ${back}`;
  }
  const wayBack = input.blobId ? blobReadCall(input.blobId) : (input.hint?.rehydrate ?? "Re-run it narrower.");
  return `${PRUNED_PREFIX}${formatCall(input.toolName, input.args, input.hint?.argOrder)} [${facts(input)}] ${wayBack}`;
}

/** `9,000 chars, 2 images, error`: the size and kind of the original result. */
function facts(input: PlaceholderInput): string {
  const out = [`${input.chars.toLocaleString("en-US")} chars`];
  if (input.images) out.push(`${input.images} image${input.images > 1 ? "s" : ""}`);
  if (input.isError) out.push("error");
  return out.join(", ");
}

/** A path or call id from the model or a provider, cut so a placeholder stays short. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The placeholder for a result that a later call made redundant or wrong (relations.ts): it names
 * the newer call (duplicate) or the call that changed the file its arguments name (stale read), and the blob
 * holding the original when there is one. Pure, like {@link placeholderText}. A bash command is only
 * known to name the file, so a stale read after one says the file "may have changed".
 */
export function relationPlaceholder(input: PlaceholderInput, relation: ResultRelation): string {
  const blob = input.blobId ? `; ${blobReadCall(input.blobId)}` : "";
  const maybe = relation.kind === "stale" && relation.changedByTool === "bash" ? "may have changed" : "changed";
  if (input.style === "short") {
    const call = formatCall(input.toolName, input.args, input.hint?.argOrder, SHORT_ARGS, SHORT_ARG_CHARS);
    const what =
      relation.kind === "duplicate"
        ? `repeated as ${clip(relation.newerCallId, SHORT_ARG_CHARS)}`
        : `stale: ${maybe} by ${clip(relation.changedByTool, SHORT_ARG_CHARS)} ${clip(relation.changedByCallId, SHORT_ARG_CHARS)}, read again`;
    return `${PRUNED_PREFIX}${call}${input.isError ? " [error]" : ""}; ${what}${blob}`;
  }
  const what =
    relation.kind === "duplicate"
      ? `repeated as ${clip(relation.newerCallId, MAX_ARG_CHARS)} (the current result)`
      : `stale: ${maybe} by ${clip(relation.changedByTool, MAX_ARG_CHARS)} ${clip(relation.changedByCallId, MAX_ARG_CHARS)}; read it again`;
  return `${PRUNED_PREFIX}${formatCall(input.toolName, input.args, input.hint?.argOrder)} [${facts(input)}] ${what}${blob}`;
}

/**
 * Why a result is superseded (relations.ts decides): a later identical call, or a later change of
 * the file it read. Defined here, where its text is written, so the two modules do not import each other.
 */
export type ResultRelation = { kind: "duplicate"; newerCallId: string } | { kind: "stale"; path: string; changedByCallId: string; changedByTool: string };

/** Whether a text block is a placeholder this plugin wrote. */
export function isPlaceholder(text: string): boolean {
  return text.startsWith(PRUNED_PREFIX);
}

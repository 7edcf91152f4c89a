/**
 * Cuts long tool-call arguments in an assistant message: a `write` of a 20 KB file or a long `edit`
 * otherwise stays in every later prompt. Each long string value (at any depth) keeps its start and
 * end around a one-line marker that says how much was cut and the way back (a blob with the full
 * arguments, else where the text lives now).
 *
 * What must survive, for every provider: the call's id, name and every other field, `arguments` as
 * an object whose JSON parses, and every other block (text, thinking with its signature) as the same
 * object. Pure and deterministic: the same message, plan and options give the same bytes, because the
 * cut message becomes part of the cached prompt prefix.
 *
 * A cut string is recognisable (see {@link isCutString}): its marker claims more characters than the
 * string has, so cutting a cut message again changes nothing.
 */
import { createHash } from "node:crypto";
import type { AgentMessageLike } from "../../core/index.ts";
import { blobReadCall } from "../blobs/index.ts";
import { formatCall } from "../../lib/tool-call/index.ts";
import { callPath, PATH_ARGS } from "../../lib/context/index.ts";
import { messageChars } from "./size.ts";

/** Why a call's arguments are cut: "large" (over `maxArgChars`) or "failed" (its result was an error). */
export type ArgumentCutReason = "large" | "failed";

/** A tool call block of an assistant message, as pi sends it. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** How arguments are cut. */
export interface ArgumentCutOptions {
  /** A completed call is cut for "large" only when `JSON.stringify(arguments).length` exceeds this (characters); 0: never. */
  maxArgChars: number;
  /** Characters kept of each cut string, split between its start (the larger half) and its end. */
  argExcerptChars: number;
  /** True for a path that matches `protectedFilePatterns` (see `protectedPathMatcher`): such calls are never cut. */
  isProtected: (path: string) => boolean;
  /** Whether a blob store will hold the full arguments: the marker then names `blob_read`. */
  blobs: boolean;
  /** Hides secrets in the stored arguments (before the blob id is computed). Default: none. */
  redact?: (text: string) => string;
}

/** The outcome for one assistant message. */
export interface ArgumentCut {
  /** The assistant message to send instead, or undefined to keep the original. */
  replacement: AgentMessageLike | undefined;
  /** Characters saved (size.ts measure); 0 when kept. */
  savedChars: number;
  /** Full arguments per cut call, to store as blobs (id = sha256 hex of the UTF-8 text); empty unless `options.blobs`. */
  blobs: Array<{ id: string; text: string }>;
  /** One line per cut call for the pruning log, e.g. `write(path="src/a.ts") arguments 20,480 -> 610 chars`. */
  summaries: string[];
}

/** Opens every marker; with the character count after it, how a cut string is recognised. */
export const ARGUMENT_MARKER_OPEN = "…[pruned: ";

/** Longest path shown in a marker (characters, before quoting). */
const MAX_MARKER_PATH = 120;
/** Nesting deeper than this is kept as it is (arguments come from the model; recursion stays bounded). */
const MAX_DEPTH = 64;

/** Keep the original (fresh arrays each time: callers may append to them). */
const keepOriginal = (): ArgumentCut => ({ replacement: undefined, savedChars: 0, blobs: [], summaries: [] });

/** The text stored for a call's full arguments: `JSON.stringify(args, null, 2)` (key order as sent; deterministic). */
export function argumentsBlobText(args: unknown): string {
  return JSON.stringify(args, null, 2) ?? "null";
}

/** sha256 hex of the UTF-8 bytes of `text`: the id `BlobStore.put(text)` returns. */
export function blobIdOf(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** `20480` -> `"20,480"`, without locale data (the marker must be the same bytes on every host). */
function groupDigits(n: number): string {
  const s = String(n);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ",";
    out += s[i];
  }
  return out;
}

/**
 * Whether `value` is a string this module cut: it holds a marker whose character count exceeds the
 * string's own length (a cut always saves characters). Text that merely quotes a marker claims fewer
 * characters than it has, or is short, and is treated as ordinary text.
 */
export function isCutString(value: string): boolean {
  for (let at = value.indexOf(ARGUMENT_MARKER_OPEN); at >= 0; at = value.indexOf(ARGUMENT_MARKER_OPEN, at + 1)) {
    let i = at + ARGUMENT_MARKER_OPEN.length;
    let n = 0;
    let digits = 0;
    for (; i < value.length && digits <= 12; i++) {
      const c = value.charCodeAt(i);
      if (c >= 48 && c <= 57) {
        n = n * 10 + (c - 48);
        digits++;
      } else if (c !== 44) break;
    }
    if (digits > 0 && value.startsWith(" chars", i) && n > value.length) return true;
  }
  return false;
}

/** The way back a marker names, after the character count. */
function wayBack(reason: ArgumentCutReason, blobId: string | undefined, path: string | undefined): string {
  if (blobId) return `full arguments: ${blobReadCall(blobId)}`;
  if (reason === "large" && path) {
    const shown = path.length > MAX_MARKER_PATH ? `${path.slice(0, MAX_MARKER_PATH - 1)}…` : path;
    return `the call changed ${JSON.stringify(shown)}: read the file for its current text`;
  }
  return "kept in the session file";
}

/** The one-line marker for a cut string of `chars` characters. */
export function argumentMarker(chars: number, reason: ArgumentCutReason, way: string): string {
  const what = reason === "failed" ? `${groupDigits(chars)} chars of a failed call's arguments` : `${groupDigits(chars)} chars`;
  return `[pruned: ${what}; ${way}]`;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** `value` cut to its start and end around the marker, or `value` itself when too short or already cut. */
function cutString(value: string, keep: number, reason: ArgumentCutReason, way: string): string {
  const marker = argumentMarker(value.length, reason, way);
  if (value.length <= 2 * keep + marker.length || isCutString(value)) return value;
  let head = Math.ceil(keep / 2);
  let tail = value.length - (keep - head);
  // Never split a surrogate pair: half of one would reach the prompt as an unpaired escape.
  if (head > 0 && isHigh(value.charCodeAt(head - 1))) head--;
  if (tail < value.length && isLow(value.charCodeAt(tail))) tail++;
  return `${value.slice(0, head)}…${marker}…${value.slice(tail)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` with every long string cut (deep); unchanged parts are returned as the same objects. */
function cutValue(value: unknown, cut: (s: string) => string, depth: number): unknown {
  if (typeof value === "string") return cut(value);
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = cutValue(v, cut, depth + 1);
      if (c !== v) changed = true;
      return c;
    });
    return changed ? out : value;
  }
  if (isPlainObject(value)) {
    let changed = false;
    const entries = Object.entries(value).map(([k, v]) => {
      const c = cutValue(v, cut, depth + 1);
      if (c !== v) changed = true;
      return [k, c] as const;
    });
    // fromEntries defines own properties: a "__proto__" key from JSON stays a key, never a prototype.
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

/** The arguments with long strings cut; the path arguments stay whole, so the call still names its file. */
function cutArguments(args: Record<string, unknown>, cut: (s: string) => string): Record<string, unknown> {
  let changed = false;
  const entries = Object.entries(args).map(([k, v]) => {
    const c = (PATH_ARGS as readonly string[]).includes(k) ? v : cutValue(v, cut, 1);
    if (c !== v) changed = true;
    return [k, c] as const;
  });
  return changed ? Object.fromEntries(entries) : args;
}

/** JSON length of `value`, or undefined when it cannot be serialised (a cycle, a BigInt): such calls are kept. */
function jsonLength(value: unknown): number | undefined {
  try {
    return JSON.stringify(value)?.length;
  } catch {
    return undefined;
  }
}

/** `name(path="...")` for the log: the call and the file it names, nothing long. */
function callLabel(name: string, args: Record<string, unknown>): string {
  const key = PATH_ARGS.find((k) => typeof args[k] === "string" && (args[k] as string).length > 0);
  return formatCall(name, key ? { [key]: args[key] } : {});
}

function isToolCall(block: unknown): block is ToolCallBlock {
  const b = block as { type?: unknown; id?: unknown; name?: unknown } | null;
  return !!b && typeof b === "object" && b.type === "toolCall" && typeof b.id === "string" && typeof b.name === "string";
}

/**
 * Cuts the long string arguments of the calls `plan` names in an assistant message. `plan(call)`
 * says which calls to cut and why (the pruner knows results, errors and ages); undefined keeps the
 * call. A "large" call is cut only when its arguments JSON exceeds `maxArgChars`; a "failed" one
 * regardless. Calls on a protected path, calls whose arguments are not a plain object, and cuts that
 * would not save characters are kept. Never mutates its input.
 */
export function cutToolCallArguments(
  message: AgentMessageLike,
  plan: (call: ToolCallBlock) => ArgumentCutReason | undefined,
  options: ArgumentCutOptions,
): ArgumentCut {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return keepOriginal();
  const keep = Math.max(0, Math.floor(options.argExcerptChars));
  const blobs: Array<{ id: string; text: string }> = [];
  const summaries: string[] = [];
  let changed = false;
  const content = (message.content as unknown[]).map((block) => {
    if (!isToolCall(block) || !isPlainObject(block.arguments)) return block;
    const reason = plan(block);
    if (!reason) return block;
    const args = block.arguments;
    const before = jsonLength(args);
    if (before === undefined) return block;
    if (reason === "large" && !(options.maxArgChars > 0 && before > options.maxArgChars)) return block;
    const path = callPath(args);
    if (path !== undefined && options.isProtected(path)) return block;
    const text = options.blobs ? (options.redact ? options.redact(argumentsBlobText(args)) : argumentsBlobText(args)) : undefined;
    const blobId = text === undefined ? undefined : blobIdOf(text);
    const way = wayBack(reason, blobId, path);
    const cutArgs = cutArguments(args, (s) => cutString(s, keep, reason, way));
    if (cutArgs === args) return block;
    const after = jsonLength(cutArgs)!;
    if (after >= before) return block;
    changed = true;
    if (text !== undefined && blobId !== undefined && !blobs.some((b) => b.id === blobId)) blobs.push({ id: blobId, text });
    const what = reason === "failed" ? "failed call's arguments" : "arguments";
    summaries.push(`${callLabel(block.name, args)} ${what} ${groupDigits(before)} -> ${groupDigits(after)} chars`);
    return { ...block, arguments: cutArgs };
  });
  if (!changed) return keepOriginal();
  const replacement = { ...message, content } as AgentMessageLike;
  const savedChars = messageChars(message) - messageChars(replacement);
  if (savedChars <= 0) return keepOriginal();
  return { replacement, savedChars, blobs, summaries };
}

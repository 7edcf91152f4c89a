import { utf8Bytes } from "../../lib/size/index.ts";
import { cutUtf8 } from "../../lib/blobs/index.ts";
import { formatBytes } from "./marker.ts";

/** How to build an excerpt. */
export interface ExcerptOptions {
  /** Hard limit of the whole excerpt (marker, outline, head, omission line, tail), in UTF-8 bytes. */
  budgetBytes: number;
  /** First line, naming the blob. Cut (never dropped) only if the budget cannot even hold it. */
  marker: string;
  /** Optional second line (a JSON outline); dropped when it leaves too little room for text. */
  outline?: string;
  /** Share of the text budget given to the head; the tail gets the rest. Default 0.6. */
  headShare?: number;
}

/** A bounded excerpt and what it left out. */
export interface Excerpt {
  text: string;
  /** UTF-8 size of `text`; never more than the budget. */
  bytes: number;
  /** Bytes of the original that are not shown. */
  omittedBytes: number;
}

// Worst-case size of the omission line with 16-digit numbers, so the budget holds for any input.
const OMISSION_RESERVE = utf8Bytes(`\n… [lines 9,999,999,999,999,999-9,999,999,999,999,999 omitted: 9,999,999,999,999,999 bytes] …\n`);
// Below this many bytes of text room the outline is dropped in favour of actual output.
const MIN_TEXT_ROOM = 256;

/**
 * Cuts `text` to a head and a tail that fit `budgetBytes` together with the marker, the outline and a
 * line saying which lines and how many bytes were omitted. Cuts fall on line boundaries when one is
 * near (within the last half of the head or the first half of the tail), and always on UTF-8
 * character boundaries. Only the head and tail windows are encoded: cost is O(budget) plus one scan
 * for newlines, whatever the input size.
 */
export function buildExcerpt(text: string, options: ExcerptOptions): Excerpt {
  const budget = Math.max(0, Math.floor(options.budgetBytes));
  const total = utf8Bytes(text);
  let header = `${options.marker}\n${options.outline ? `${options.outline}\n` : ""}`;
  if (total + utf8Bytes(header) <= budget) return finish(header + text, budget, 0);

  let room = budget - utf8Bytes(header) - OMISSION_RESERVE;
  if (options.outline && room < MIN_TEXT_ROOM) {
    header = `${options.marker}\n`;
    room = budget - utf8Bytes(header) - OMISSION_RESERVE;
  }
  if (room <= 0) return finish(options.marker, budget, total);

  const headRoom = Math.floor(room * (options.headShare ?? 0.6));
  const head = headWithin(text, headRoom);
  const tail = tailWithin(text, room - headRoom);
  const headText = head.toString("utf8");
  const tailText = tail.toString("utf8");
  const omitted = total - head.length - tail.length;

  // 1-based line numbers (as blob_read counts them) of the first and last line with omitted content.
  // A head that stops right before a newline showed its last line whole; likewise for the tail.
  const headEnd = headText.length;
  const tailStart = text.length - tailText.length;
  const firstOmitted = countNewlines(headText) + 1 + (text.charCodeAt(headEnd) === 10 ? 1 : 0);
  const lastOmitted = countNewlines(text) - countNewlines(tailText) + 1 - (tailStart > 0 && text.charCodeAt(tailStart - 1) === 10 ? 1 : 0);
  const range = lastOmitted >= firstOmitted ? `lines ${formatBytes(firstOmitted)}-${formatBytes(lastOmitted)}` : `part of line ${formatBytes(firstOmitted)}`;
  const omission = `\n… [${range} omitted: ${formatBytes(omitted)} bytes] …\n`;
  return finish(header + headText + omission + tailText, budget, omitted);
}

function finish(text: string, budget: number, omittedBytes: number): Excerpt {
  let buf: Buffer = Buffer.from(text, "utf8");
  // Belt and braces: the arithmetic above keeps within budget; this makes it impossible not to.
  if (buf.length > budget) buf = cutUtf8(buf, budget);
  return { text: buf.length === utf8Bytes(text) ? text : buf.toString("utf8"), bytes: buf.length, omittedBytes };
}

/** The first at most `max` bytes of `text`, ending at a newline when one lies in the second half. */
function headWithin(text: string, max: number): Buffer {
  if (max <= 0) return Buffer.alloc(0);
  // `max` characters hold at least `max` bytes; a trailing high surrogate alone would encode as U+FFFD.
  let end = Math.min(text.length, max);
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  const buf = cutUtf8(Buffer.from(text.slice(0, end), "utf8"), max);
  const nl = buf.lastIndexOf(0x0a);
  return nl >= buf.length / 2 ? buf.subarray(0, nl) : buf;
}

/** The last at most `max` bytes of `text`, starting after a newline when one lies in the first half. */
function tailWithin(text: string, max: number): Buffer {
  if (max <= 0) return Buffer.alloc(0);
  let start = Math.max(0, text.length - max);
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  const buf = cutUtf8Start(Buffer.from(text.slice(start), "utf8"), max);
  const nl = buf.indexOf(0x0a);
  return nl >= 0 && nl < buf.length / 2 ? buf.subarray(nl + 1) : buf;
}

/** At most `max` bytes from the end, starting on a character's first byte. */
function cutUtf8Start(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let start = buf.length - max;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Number of "\n" in `text`. */
export function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

import { compilePattern, createLineMatcher, DEFAULT_BATCH_DEADLINE_MS, PatternTooSlowError, tooSlowError, type SafePattern } from "../regex/index.ts";
import { cutUtf8, scanLines, type ScannedLine } from "./read-lines.ts";

/** One page of a blob read by lines. */
export interface LinePage {
  /** The lines of the page (no "\n"); joining every page's lines with "\n" gives back the blob. */
  lines: string[];
  /** 1-based number of the first line returned. */
  firstLine: number;
  /** Line to ask for next, or undefined when the page reached the end of the blob. */
  nextLine: number | undefined;
  /**
   * Set when the first line alone was longer than the byte limit and was cut: its byte offset and
   * full size, so the caller can page through it by bytes instead.
   */
  cutLine?: { line: number; byteOffset: number; lineBytes: number };
}

/**
 * Reads up to `maxLines` lines from line `fromLine` (1-based), stopping before the page would exceed
 * `maxBytes` (UTF-8, counting one "\n" between lines). A first line longer than `maxBytes` is cut on a
 * character boundary and reported in `cutLine`. Streams; memory is bounded by `maxBytes`. An aborted
 * `signal` stops the read between chunks.
 */
export async function readLinePage(path: string, fromLine: number, maxLines: number, maxBytes: number, signal?: AbortSignal): Promise<LinePage> {
  const first = Math.max(1, Math.floor(fromLine));
  const lines: string[] = [];
  let used = 0;
  let nextLine: number | undefined;
  let cutLine: LinePage["cutLine"];
  for await (const l of scanLines(path, first, maxBytes + 4, signal)) {
    const cost = l.lineBytes + (lines.length ? 1 : 0);
    if (lines.length >= maxLines || (lines.length > 0 && used + cost > maxBytes)) {
      nextLine = l.line;
      break;
    }
    if (lines.length === 0 && l.lineBytes > maxBytes) {
      lines.push(cutUtf8(l.bytes, maxBytes).toString("utf8"));
      cutLine = { line: l.line, byteOffset: l.byteOffset, lineBytes: l.lineBytes };
      used = maxBytes; // the page is full: the next line, if any, breaks the loop and becomes nextLine
      continue;
    }
    lines.push(l.bytes.toString("utf8"));
    used += cost;
  }
  return { lines, firstLine: first, nextLine, ...(cutLine ? { cutLine } : {}) };
}

/** One grep hit. */
export interface GrepMatch {
  /** 1-based line number. */
  line: number;
  /** The line, cut to `maxLineChars` characters around the first match. */
  text: string;
}

/** Result of {@link grepBlob}. */
export interface GrepResult {
  matches: GrepMatch[];
  /** Line to resume the search from, when the match or byte limit stopped it early. */
  nextLine: number | undefined;
  /** Lines scanned. */
  scanned: number;
}

/** Options of {@link grepBlob}. */
export interface GrepOptions {
  /** 1-based line to search from. Default 1. */
  fromLine?: number;
  /** Most matches returned. Default 50. */
  maxMatches?: number;
  /** Most output bytes (shown lines plus 12 bytes each). Default 16,384. */
  maxBytes?: number;
  /** Characters shown around each match. Default 300. */
  maxLineChars?: number;
  /** Bytes of each line that are searched. Default 1 MiB. */
  maxLineBytes?: number;
  /** Stops the search (between batches of lines) with the signal's reason. */
  signal?: AbortSignal;
  /** How long one batch of lines may take before the pattern counts as too slow, in ms. Default 2,000. */
  batchDeadlineMs?: number;
}

/** Lines handed to the matcher at once: at most this many... */
const BATCH_LINES = 2_048;
/** ...or this many UTF-16 units (about 256 KiB of ASCII), whichever comes first. */
const BATCH_CHARS = 1 << 18;

/**
 * Lines matching `pattern`, from line `fromLine` on, at most `maxMatches` of them and at most
 * `maxBytes` of output in total. Each line is tested on its first `maxLineBytes` bytes (default
 * 1 MiB) and shown as a window of `maxLineChars` characters (default 300) around the match.
 * A string pattern is compiled with `compilePattern` (case-insensitive, literal when invalid).
 * A pattern with regex syntax runs in a worker under a per-batch deadline (lib/regex): a
 * catastrophic pattern ends with an InvalidInputError that says what to do, and the event loop
 * never blocks; a literal is searched on this thread in linear time.
 */
export async function grepBlob(path: string, pattern: SafePattern | string, options: GrepOptions = {}): Promise<GrepResult> {
  const safe = typeof pattern === "string" ? compilePattern(pattern) : pattern;
  const maxMatches = options.maxMatches ?? 50;
  const maxBytes = options.maxBytes ?? 16_384;
  const maxLineChars = options.maxLineChars ?? 300;
  const signal = options.signal;
  const deadlineMs = options.batchDeadlineMs ?? DEFAULT_BATCH_DEADLINE_MS;
  const matcher = createLineMatcher(safe, { batchDeadlineMs: deadlineMs });
  const from = Math.max(1, Math.floor(options.fromLine ?? 1));
  const matches: GrepMatch[] = [];
  let used = 0;
  let read = 0;
  let nextLine: number | undefined;
  type Line = { line: number; text: string };
  // One batch is in the matcher while the next one is read from disk (the worker and the file read
  // overlap). Only one is in flight: a matcher answers batches in order.
  let inFlight: { lines: Line[]; found: Promise<ArrayLike<number>> } | undefined;
  const send = (lines: Line[]) => {
    const found = matcher.match(
      lines.map((l) => l.text),
      signal,
    );
    found.catch(() => {}); // awaited in settle(); this only keeps an early rejection from counting as unhandled
    inFlight = { lines, found };
  };
  /** Takes the matches of the batch in flight; true when the output is full (nextLine is set). */
  const settle = async (): Promise<boolean> => {
    if (!inFlight) return false;
    const { lines, found } = inFlight;
    inFlight = undefined;
    const at = await found.catch((error: unknown) => {
      // Name the lines, so the model knows where its pattern choked.
      if (error instanceof PatternTooSlowError) throw tooSlowError(safe.source, deadlineMs, `lines ${lines[0]!.line}-${lines.at(-1)!.line}`);
      throw error;
    });
    for (let i = 0; i < lines.length; i++) {
      if (at[i]! < 0) continue;
      const { line, text } = lines[i]!;
      const shown = windowAround(text, at[i]!, maxLineChars);
      const cost = Buffer.byteLength(shown) + 12;
      if (matches.length >= maxMatches || used + cost > maxBytes) {
        nextLine = line;
        return true;
      }
      matches.push({ line, text: shown });
      used += cost;
    }
    return false;
  };
  try {
    let batch: Line[] = [];
    let batchChars = 0;
    let full = false;
    for await (const l of scanLines(path, from, options.maxLineBytes ?? 1 << 20, signal) as AsyncGenerator<ScannedLine>) {
      read++;
      const text = l.bytes.toString("utf8");
      batch.push({ line: l.line, text });
      batchChars += text.length;
      if (batch.length >= BATCH_LINES || batchChars >= BATCH_CHARS) {
        if (await settle()) {
          full = true;
          break;
        }
        send(batch);
        batch = [];
        batchChars = 0;
      }
    }
    if (!full && !(await settle()) && batch.length) {
      send(batch);
      await settle();
    }
    // Lines are consecutive from `from`: the scan counts up to the line that filled the output.
    return { matches, nextLine, scanned: nextLine !== undefined ? nextLine - from + 1 : read };
  } finally {
    await matcher.close();
  }
}

/** A window of at most `width` characters of `text` around `index`, with ellipses where cut. */
function windowAround(text: string, index: number, width: number): string {
  if (text.length <= width) return text;
  const start = Math.max(0, Math.min(index - Math.floor(width / 3), text.length - width));
  const body = text.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${body}${start + width < text.length ? "…" : ""}`;
}

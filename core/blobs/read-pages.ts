import { cutUtf8, scanLines } from "./read-lines.ts";

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
 * character boundary and reported in `cutLine`. Streams; memory is bounded by `maxBytes`.
 */
export async function readLinePage(path: string, fromLine: number, maxLines: number, maxBytes: number): Promise<LinePage> {
  const first = Math.max(1, Math.floor(fromLine));
  const lines: string[] = [];
  let used = 0;
  let nextLine: number | undefined;
  let cutLine: LinePage["cutLine"];
  for await (const l of scanLines(path, first, maxBytes + 4)) {
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

/**
 * Lines matching `pattern`, from line `fromLine` on, at most `maxMatches` of them and at most
 * `maxBytes` of output in total. Each line is tested on its first `maxLineBytes` bytes (default
 * 1 MiB) and shown as a window of `maxLineChars` characters (default 300) around the match.
 */
export async function grepBlob(
  path: string,
  pattern: RegExp,
  options: { fromLine?: number; maxMatches?: number; maxBytes?: number; maxLineChars?: number; maxLineBytes?: number } = {},
): Promise<GrepResult> {
  const maxMatches = options.maxMatches ?? 50;
  const maxBytes = options.maxBytes ?? 16_384;
  const maxLineChars = options.maxLineChars ?? 300;
  const re = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  const matches: GrepMatch[] = [];
  let used = 0;
  let scanned = 0;
  let nextLine: number | undefined;
  for await (const l of scanLines(path, options.fromLine ?? 1, options.maxLineBytes ?? 1 << 20)) {
    scanned++;
    const text = l.bytes.toString("utf8");
    const m = re.exec(text);
    if (!m) continue;
    const shown = windowAround(text, m.index, maxLineChars);
    const cost = Buffer.byteLength(shown) + 12;
    if (matches.length >= maxMatches || used + cost > maxBytes) {
      nextLine = l.line;
      break;
    }
    matches.push({ line: l.line, text: shown });
    used += cost;
  }
  return { matches, nextLine, scanned };
}

/** A window of at most `width` characters of `text` around `index`, with ellipses where cut. */
function windowAround(text: string, index: number, width: number): string {
  if (text.length <= width) return text;
  const start = Math.max(0, Math.min(index - Math.floor(width / 3), text.length - width));
  const body = text.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${body}${start + width < text.length ? "…" : ""}`;
}

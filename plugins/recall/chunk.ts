/**
 * Cuts an output into chunks of whole lines so a search hit points at a line range a `blob_read`
 * call can open. A chunk ends after `maxLines` lines or once it holds `maxBytes` UTF-8 bytes; a
 * single longer line (minified JSON) is cut by characters and keeps its line number.
 */

/** One chunk: its text and its 1-based first and last line in the output. */
export interface Chunk {
  text: string;
  firstLine: number;
  lastLine: number;
}

/** Chunking limits. */
export interface ChunkLimits {
  /** Lines per chunk. Default 40. */
  maxLines: number;
  /** UTF-8 bytes per chunk (approximate for multi-byte text: counted as characters * 1). Default 4096. */
  maxBytes: number;
  /** Most chunks per output; the rest of the output is not indexed. Default 4096. */
  maxChunks: number;
}

/** Default limits: ~40 lines / 4 KB, at most 4096 chunks (16 MiB) per output. */
export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxLines: 40, maxBytes: 4096, maxChunks: 4096 };

/** The chunks of `text`, in order. An empty text has none. */
export function chunkText(text: string, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Chunk[] {
  const chunks: Chunk[] = [];
  if (text.length === 0) return chunks;
  const lines = text.split("\n");
  let buf: string[] = [];
  let size = 0;
  let first = 1;
  const flush = (last: number) => {
    if (buf.length) chunks.push({ text: buf.join("\n"), firstLine: first, lastLine: last });
    buf = [];
    size = 0;
  };
  for (let i = 0; i < lines.length && chunks.length < limits.maxChunks; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (line.length > limits.maxBytes) {
      flush(lineNo - 1);
      for (let at = 0; at < line.length && chunks.length < limits.maxChunks; at += limits.maxBytes) {
        chunks.push({ text: line.slice(at, at + limits.maxBytes), firstLine: lineNo, lastLine: lineNo });
      }
      first = lineNo + 1;
      continue;
    }
    if (buf.length && (buf.length >= limits.maxLines || size + line.length + 1 > limits.maxBytes)) {
      flush(lineNo - 1);
      first = lineNo;
    }
    if (!buf.length) first = lineNo;
    buf.push(line);
    size += line.length + 1;
  }
  if (chunks.length < limits.maxChunks) flush(lines.length);
  return chunks.slice(0, limits.maxChunks);
}

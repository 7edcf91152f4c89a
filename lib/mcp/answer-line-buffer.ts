/**
 * Splits a server's stdout into JSON-RPC lines in linear time, with a size limit per line that
 * drops an oversized line instead of the connection. It replaces the SDK's stdio ReadBuffer, which
 * copies the whole pending buffer on every chunk (quadratic: seconds for a 20 MB answer) and, past
 * its fixed 10 MB, throws and closes the transport: the child then sees stdin EOF, exits with code 0,
 * and the call is reported as a crash.
 *
 * An oversized line is skipped up to its newline, so the stream stays in step and the server keeps
 * running; what it answered is told apart by the JSON-RPC id read from the line's first or last bytes
 * (SDK servers write the id last, pydantic-based ones right after "jsonrpc").
 */
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A line longer than the limit, dropped. */
export interface OversizedLine {
  /** Its length in bytes (without the newline). */
  bytes: number;
  /** The JSON-RPC id read from its start or end, when one was found. */
  id: string | number | undefined;
}

const EDGE = 256;
const NEWLINE = 0x0a;
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*[,}]/;
// Exactly one closing brace after the id: a nested object's "id" would be followed by two or more.
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*\}\s*$/;

/** The id of a JSON-RPC line from its first and last bytes, or undefined. */
export function idFromEdges(head: string, tail: string): string | number | undefined {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!m) return undefined;
  const raw = m[1]!;
  return raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
}

/** Drop-in for the SDK's ReadBuffer (append / readMessage / clear) with a per-line byte limit. */
export class AnswerLineBuffer {
  private parts: Buffer[] = [];
  private pending = 0;
  private lines: Array<Buffer | JSONRPCMessage> = [];
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  /** Bytes received so far (liveness: a server sending a long answer is not hung). */
  received = 0;

  /**
   * @param maxLineBytes longest line kept, in bytes
   * @param onOversized told about every dropped line once its end arrived; returns the messages to
   *   deliver in its place (error answers for the requests it answered), in stream order
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onOversized: (line: OversizedLine) => JSONRPCMessage[],
  ) {}

  append(chunk: Buffer): void {
    this.received += chunk.length;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start) this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  /** The next complete message, or null. Throws (like the SDK's) on a line that is not JSON-RPC. */
  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    if (!line) return null;
    if (!Buffer.isBuffer(line)) return line;
    return deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
  }

  clear(): void {
    this.parts = [];
    this.pending = 0;
    this.lines = [];
    this.skipping = undefined;
  }

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = Buffer.concat([this.skipping.tail, piece.subarray(-EDGE)]).subarray(-EDGE);
      return;
    }
    if (this.pending + piece.length <= this.maxLineBytes) {
      this.parts.push(piece);
      this.pending += piece.length;
      return;
    }
    const all = Buffer.concat([...this.parts, piece.subarray(0, EDGE)]);
    this.skipping = { bytes: this.pending + piece.length, head: all.subarray(0, EDGE), tail: Buffer.from(piece.subarray(-EDGE)) };
    this.parts = [];
    this.pending = 0;
  }

  private endLine(): void {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = undefined;
      this.lines.push(...this.onOversized({ bytes, id: idFromEdges(head.toString("utf8"), tail.toString("utf8")) }));
      return;
    }
    if (this.pending === 0) return;
    this.lines.push(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.pending));
    this.parts = [];
    this.pending = 0;
  }
}

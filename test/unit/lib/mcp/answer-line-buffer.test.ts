import { describe, expect, it } from "vitest";
import { AnswerLineBuffer, idFromEdges, type OversizedLine } from "../../../../lib/mcp/answer-line-buffer.ts";

const line = (id: number, text: string) => `${JSON.stringify({ result: { content: [{ type: "text", text }] }, jsonrpc: "2.0", id })}\n`;

function drain(buffer: AnswerLineBuffer): unknown[] {
  const out: unknown[] = [];
  for (let m = buffer.readMessage(); m; m = buffer.readMessage()) out.push(m);
  return out;
}

describe("AnswerLineBuffer", () => {
  it("splits messages across and within chunks, with CRLF, and counts the bytes", () => {
    const b = new AnswerLineBuffer(1024, () => []);
    const all = Buffer.from(line(1, "a") + line(2, "b").replace("\n", "\r\n") + line(3, "c"));
    for (let i = 0; i < all.length; i += 7) b.append(all.subarray(i, i + 7));
    expect(drain(b).map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(b.received).toBe(all.length);
  });

  it("drops a line over the limit up to its newline, reports it with its id, and keeps the stream in step", () => {
    const seen: OversizedLine[] = [];
    const b = new AnswerLineBuffer(100, (l) => (seen.push(l), [{ jsonrpc: "2.0", id: l.id!, error: { code: -1, message: "too large" } }]));
    const big = line(7, "x".repeat(5_000));
    const all = Buffer.from(line(1, "before") + big + line(2, "after"));
    for (let i = 0; i < all.length; i += 64) b.append(all.subarray(i, i + 64));
    expect(seen).toEqual([{ bytes: big.length - 1, id: 7 }]);
    expect(drain(b)).toEqual([
      expect.objectContaining({ id: 1 }),
      { jsonrpc: "2.0", id: 7, error: { code: -1, message: "too large" } },
      expect.objectContaining({ id: 2 }),
    ]);
  });

  it("throws on a line that is not JSON-RPC, like the SDK's buffer, and goes on with the next", () => {
    const b = new AnswerLineBuffer(1024, () => []);
    b.append(Buffer.from(`not json\n${line(1, "ok")}`));
    expect(() => b.readMessage()).toThrow();
    expect(b.readMessage()).toMatchObject({ id: 1 });
  });
});

describe("idFromEdges", () => {
  it("reads the id an SDK server writes last and a pydantic server writes first; numbers and strings", () => {
    expect(idFromEdges('{"result":{"content":[{"type":"text","text":"aaa', 'aaa"}]},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(idFromEdges('{"jsonrpc":"2.0","id":"req-7","result":{"content":[{"text":"aaa', 'aaa"}]}}')).toBe("req-7");
    expect(idFromEdges('{"id": 3, "jsonrpc": "2.0", "result": {"x": "aaa', 'aaa"}}')).toBe(3);
  });

  it("does not take an id nested inside the result", () => {
    expect(idFromEdges('{"result":{"items":[{"name":"aaa', 'aaa","id":9}]},"jsonrpc":"2.0"}')).toBeUndefined();
    expect(idFromEdges('{"result":{"item":{"a":"aaa', 'aaa","id":9}}}')).toBeUndefined();
  });
});

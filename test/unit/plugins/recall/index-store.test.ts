import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, probeSqlite } from "../../../../lib/sqlite/index.ts";
import { chunkText } from "../../../../plugins/recall/chunk.ts";
import { identifierWords } from "../../../../plugins/recall/identifiers.ts";
import { RecallIndex, type OutputRecord } from "../../../../plugins/recall/index-store.ts";
import { matchExpression } from "../../../../plugins/recall/query.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..", "..");
const source = (p: string) => readFileSync(join(ROOT, p), "utf8");
const fts = probeSqlite().fts5;

let seq = 0;
function record(text: string, extra: Partial<OutputRecord> = {}): OutputRecord {
  seq++;
  return {
    sessionId: "s1",
    project: "/p",
    tool: "read",
    args: `read(path="f${seq}")`,
    turn: 1,
    atMs: 1_000 * seq,
    toolCallId: `call-${seq}`,
    blobId: `blob-${seq}`,
    isError: false,
    text,
    ...extra,
  };
}

/** A pi-like log: 400 lines of routine, one error line in the middle. */
function serverLog(): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) lines.push(`2026-11-23T10:${String(i % 60).padStart(2, "0")}:00Z INFO request ${i} served in ${i % 17} ms`);
  lines[237] = "2026-11-23T10:57:00Z ERROR ECONNRESET upstream kotadb socket hang up (attempt 3)";
  return lines.join("\n");
}

describe.skipIf(!fts)("recall index on real outputs", () => {
  let index: RecallIndex;
  afterEach(() => index?.close());

  function build(records: OutputRecord[]): RecallIndex {
    index = new RecallIndex(openDatabase(":memory:"));
    index.addAll(records);
    return index;
  }

  it("ranks the file that defines an identifier first, found by the whole identifier and by a part of it", () => {
    const files = [
      "lib/blobs/store.ts",
      "plugins/blobs/shape.ts",
      "plugins/prune/placeholder.ts",
      "lib/sqlite/open.ts",
      "core/hooks.ts",
      "plugins/blobs/read-tool.ts",
    ];
    build(files.map((p) => record(source(p), { args: `read(path="${p}")` })));
    expect(index.search("BlobStore sweep").hits[0]!.args).toContain("lib/blobs/store.ts");
    // a camelCase part: "Placeholder" of isPlaceholder / placeholderText
    expect(index.search("placeholder prefix").hits[0]!.args).toContain("placeholder.ts");
    // snake_case, dotted and path parts
    expect(index.search("busy_timeout").hits[0]!.args).toContain("lib/sqlite/open.ts");
    expect(index.search("AsyncSeriesWaterfallHook").hits[0]!.args).toContain("core/hooks.ts");
    expect(index.search("Waterfall").hits[0]!.args).toContain("core/hooks.ts");
  });

  it("points at the chunk's line range: the error line of a 400-line log", () => {
    build([record(serverLog(), { tool: "bash", args: 'bash(command="tail -n 400 server.log")' }), record(source("core/errors.ts"))]);
    const hit = index.search("ECONNRESET").hits[0]!;
    expect(hit.tool).toBe("bash");
    expect(hit.firstLine).toBeLessThanOrEqual(238);
    expect(hit.lastLine).toBeGreaterThanOrEqual(238);
    expect(hit.lastLine - hit.firstLine).toBeLessThan(40);
    expect(hit.snippet).toContain("«ECONNRESET»");
  });

  it("finds keys and values in JSON answers", () => {
    const json = JSON.stringify(
      { results: Array.from({ length: 50 }, (_, i) => ({ path: `src/module${i}.ts`, symbol: `handleRequest${i}`, score: i / 50 })) },
      null,
      2,
    );
    build([record(json, { tool: "kota_search" }), record(source("package.json"), { tool: "read" })]);
    const hit = index.search("handleRequest42").hits[0]!;
    expect(hit.tool).toBe("kota_search");
    expect(
      json
        .split("\n")
        .slice(hit.firstLine - 1, hit.lastLine)
        .join("\n"),
    ).toContain("handleRequest42");
    expect(index.search("better-sqlite3 optionalDependencies").hits[0]!.tool).toBe("read");
  });

  it("filters by session, project and tool, and falls back to any word", () => {
    build([record("alpha beta", { sessionId: "a", project: "/x" }), record("alpha gamma", { sessionId: "b", project: "/y", tool: "bash" })]);
    expect(index.search("alpha", { sessionId: "a" }).hits.map((h) => h.sessionId)).toEqual(["a"]);
    expect(index.search("alpha", { project: "/y" }).hits.map((h) => h.sessionId)).toEqual(["b"]);
    expect(index.search("alpha", { tool: "bash" }).hits.map((h) => h.tool)).toEqual(["bash"]);
    const relaxed = index.search("beta delta");
    expect(relaxed.relaxed).toBe(true);
    expect(relaxed.hits).toHaveLength(1);
  });

  it("treats FTS5 syntax in a query as text", () => {
    build([record('NEAR(a b) "quoted" body:x column* OR AND NOT')]);
    for (const q of ["NEAR(a b)", '"quoted"', "body:x", "column*", "OR", "AND NOT", '"', "*", "-"]) {
      expect(() => index.search(q)).not.toThrow();
    }
    expect(index.search("body:x").hits).toHaveLength(1);
  });

  it("removes an output's chunks with it, and keeps the newest when bounded", () => {
    build([record(serverLog(), { blobId: "gone" }), record("keep me"), record("newest one")]);
    expect(index.removeBlob("gone")).toBe(1);
    expect(index.search("ECONNRESET").hits).toHaveLength(0);
    expect(Number(index.db.prepare("SELECT COUNT(*) AS n FROM chunks").get()!.n)).toBe(2);
    expect(index.keepNewest(1)).toBe(1);
    expect(index.search("keep").hits).toHaveLength(0);
    expect(index.search("newest").hits).toHaveLength(1);
  });
});

describe("recall helpers", () => {
  it("splits compound identifiers only", () => {
    expect(identifierWords("const blobStore = new BlobStore(); parseHTTPResponse2 plain snake_case")).toBe("blob Store\nBlob Store\nparse HTTP Response 2");
  });

  it("chunks by lines and bytes, a long line by characters, with exact line numbers", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n");
    const chunks = chunkText(text, { maxLines: 40, maxBytes: 4096, maxChunks: 10 });
    expect(chunks.map((c) => [c.firstLine, c.lastLine])).toEqual([
      [1, 40],
      [41, 80],
      [81, 100],
    ]);
    expect(chunks.map((c) => c.text).join("\n")).toBe(text);
    const long = chunkText(`a\n${"x".repeat(10_000)}\nb`, { maxLines: 40, maxBytes: 4096, maxChunks: 10 });
    expect(long.map((c) => [c.firstLine, c.lastLine, c.text.length])).toEqual([
      [1, 1, 1],
      [2, 2, 4096],
      [2, 2, 4096],
      [2, 2, 1808],
      [3, 3, 1],
    ]);
  });

  it("quotes every term", () => {
    expect(matchExpression('say "hi" blobStore', "all")).toBe('"say" AND "hi" AND ("blobStore" OR "blob Store")');
    expect(matchExpression("  ** ", "any")).toBeUndefined();
  });
});

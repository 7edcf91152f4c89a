/**
 * readLinePage and grepBlob on real files: pages that join back into the blob, byte limits on
 * UTF-8 boundaries, an over-long first line cut and reported, grep limits and resume points, match
 * windows, and a catastrophic pattern ended by its deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grepBlob, readLinePage } from "../../../../lib/blobs/read-pages.ts";

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "gov-read-pages-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string): string {
  const path = join(dir, `blob-${n++}.txt`);
  writeFileSync(path, text);
  return path;
}

describe("readLinePage", () => {
  it("pages through a blob by lines; joining every page gives the blob back", async () => {
    const text = Array.from({ length: 23 }, (_, i) => `line ${i + 1} ✓`).join("\n");
    const path = file(text);
    const all: string[] = [];
    let from: number | undefined = 1;
    let pages = 0;
    while (from !== undefined) {
      const page = await readLinePage(path, from, 5, 1_000);
      expect(page.firstLine).toBe(from);
      expect(page.lines.length).toBeLessThanOrEqual(5);
      all.push(...page.lines);
      from = page.nextLine;
      pages++;
    }
    expect(pages).toBe(5);
    expect(all.join("\n")).toBe(text);
  });

  it("stops before the byte limit (counting one newline between lines) and says where to go on", async () => {
    const path = file("aaaa\nbbbb\ncccc\ndddd");
    expect(await readLinePage(path, 1, 100, 9)).toEqual({ lines: ["aaaa", "bbbb"], firstLine: 1, nextLine: 3 });
    expect(await readLinePage(path, 1, 100, 8)).toEqual({ lines: ["aaaa"], firstLine: 1, nextLine: 2 });
    expect(await readLinePage(path, 3, 100, 1_000)).toEqual({ lines: ["cccc", "dddd"], firstLine: 3, nextLine: undefined });
  });

  it("cuts a first line over the limit on a character boundary and reports its offset and size", async () => {
    const long = "é".repeat(100); // 200 bytes
    const path = file(`short\n${long}\nafter`);
    const page = await readLinePage(path, 2, 10, 51);
    expect(page.lines).toEqual(["é".repeat(25)]);
    expect(page.cutLine).toEqual({ line: 2, byteOffset: 6, lineBytes: 200 });
    expect(page.nextLine).toBe(3);
  });

  it("treats a bad starting line as line 1 and past the end as an empty last page", async () => {
    const path = file("one\ntwo");
    expect(await readLinePage(path, -7.5, 1, 100)).toEqual({ lines: ["one"], firstLine: 1, nextLine: 2 });
    expect(await readLinePage(path, 99, 10, 100)).toEqual({ lines: [], firstLine: 99, nextLine: undefined });
  });

  it("stops when the signal aborts", async () => {
    const path = file("x\n".repeat(10_000));
    await expect(readLinePage(path, 1, 1_000_000, 1_000_000, AbortSignal.abort(new Error("stop")))).rejects.toThrow("stop");
  });
});

describe("grepBlob", () => {
  it("finds matching lines with their numbers, case-insensitive, a bad regex taken literally", async () => {
    const path = file("alpha\nERROR one\nbeta\nerror two\n(unclosed\n");
    const r = await grepBlob(path, "error");
    expect(r).toEqual({
      matches: [
        { line: 2, text: "ERROR one" },
        { line: 4, text: "error two" },
      ],
      nextLine: undefined,
      scanned: 6,
    });
    expect((await grepBlob(path, "(unclosed")).matches).toEqual([{ line: 5, text: "(unclosed" }]);
    expect((await grepBlob(path, "^b.t")).matches).toEqual([{ line: 3, text: "beta" }]);
  });

  it("stops at maxMatches with the line to resume from, and resumes there", async () => {
    const path = file(Array.from({ length: 10 }, (_, i) => `hit ${i + 1}`).join("\n"));
    const first = await grepBlob(path, "hit", { maxMatches: 3 });
    expect(first.matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect([first.nextLine, first.scanned]).toEqual([4, 4]);
    const rest = await grepBlob(path, "hit", { fromLine: first.nextLine! });
    expect(rest.matches.map((m) => m.line)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(rest.nextLine).toBeUndefined();
  });

  it("stops at the output byte limit (each line plus 12 bytes)", async () => {
    const path = file("match aaaa\nmatch bbbb\nmatch cccc");
    const r = await grepBlob(path, "match", { maxBytes: 2 * (10 + 12) });
    expect(r.matches.map((m) => m.line)).toEqual([1, 2]);
    expect(r.nextLine).toBe(3);
  });

  it("shows a long line as a window around the match, with ellipses where cut", async () => {
    const path = file(`${"a".repeat(5_000)}NEEDLE${"b".repeat(5_000)}`);
    const [m] = (await grepBlob(path, "needle", { maxLineChars: 60 })).matches;
    expect(m!.text.startsWith("…")).toBe(true);
    expect(m!.text.endsWith("…")).toBe(true);
    expect(m!.text).toContain("NEEDLE");
    expect(m!.text.length).toBe(62);
  });

  it("searches only the first maxLineBytes of a line", async () => {
    const path = file(`${"x".repeat(2_000)}needle`);
    expect((await grepBlob(path, "needle", { maxLineBytes: 1_000 })).matches).toEqual([]);
    expect((await grepBlob(path, "needle", { maxLineBytes: 4_000 })).matches).toHaveLength(1);
  });

  it("ends a catastrophic pattern at its deadline with a message naming the lines", async () => {
    const path = file(`${"a".repeat(40)}!\n`.repeat(3));
    await expect(grepBlob(path, "(a+)+$", { batchDeadlineMs: 200 })).rejects.toThrow(/lines 1-/);
  }, 30_000);
});

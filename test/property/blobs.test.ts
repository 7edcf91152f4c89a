import fc from "fast-check";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlobStore, grepBlob, WRITE_CHUNK_CHARS } from "../../lib/blobs/index.ts";
import { buildExcerpt, jsonOutline } from "../../plugins/blobs/index.ts";
import { blobMarker } from "../../plugins/blobs/marker.ts";

const root = mkdtempSync(join(tmpdir(), "pigov-blobprop-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const store = new BlobStore({ dir: join(root, "blobs") });

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Any text: unicode, control characters and NUL, lone surrogates, lines of any length, empty. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.string({ unit: "grapheme", maxLength: 400 }),
  fc.string({ unit: "binary-ascii", maxLength: 400 }),
  fc.string({
    unit: fc.oneof(fc.constantFrom("\n", "\r\n", "{", "}", "é", "😀", "\0"), loneSurrogate, fc.string({ unit: "binary", maxLength: 30 })),
    maxLength: 200,
  }),
  fc.constant(""),
);
/** Larger text: a random piece repeated up to a few hundred KB. */
const largeText = fc.tuple(anyText, fc.integer({ min: 1, max: 3_000 })).map(([s, n]) => (s || "x").repeat(n));

describe("blob excerpts (property)", () => {
  it("an excerpt never exceeds its budget, for any text, marker and budget", () => {
    fc.assert(
      fc.property(
        fc.oneof(anyText, largeText),
        fc.integer({ min: 0, max: 10_000 }),
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
        (text, budget, marker, outline) => {
          const ex = buildExcerpt(text, { budgetBytes: budget, marker, ...(outline !== undefined ? { outline } : {}) });
          expect(ex.bytes).toBeLessThanOrEqual(budget);
          expect(Buffer.byteLength(ex.text)).toBe(ex.bytes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an excerpt keeps the marker first, and only whole characters of the original's head and tail", () => {
    fc.assert(
      fc.property(largeText, fc.integer({ min: 600, max: 8_000 }), (text, budget) => {
        const expected = Buffer.from(text, "utf8").toString("utf8");
        const marker = blobMarker("a".repeat(64), Buffer.byteLength(text));
        const ex = buildExcerpt(text, { budgetBytes: budget, marker });
        expect(ex.text.startsWith(`${marker}\n`)).toBe(true);
        // Lone surrogates read as U+FFFD once encoded, as in the stored blob.
        const body = Buffer.from(ex.text.slice(marker.length + 1), "utf8").toString("utf8");
        const m = /\n… \[[^\]]*omitted: [\d,]+ bytes\] …\n/.exec(body);
        if (!m) {
          expect(body).toBe(expected);
          return;
        }
        expect(expected.startsWith(body.slice(0, m.index))).toBe(true);
        expect(expected.endsWith(body.slice(m.index + m[0].length))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("a JSON outline is one bounded line for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 20, max: 600 }), (value, maxChars) => {
        const outline = jsonOutline(JSON.stringify(value, null, 2), { maxChars });
        if (outline === undefined) return;
        expect(outline.length).toBeLessThanOrEqual(maxChars);
        expect(outline).not.toContain("\n");
      }),
      { numRuns: 200 },
    );
  });
});

describe("blob store (property)", () => {
  it("stores any text byte for byte (unicode, binary-looking, empty)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyText, largeText), async (text) => {
        const blob = await store.put(text);
        expect(readFileSync(blob.path).equals(Buffer.from(text, "utf8"))).toBe(true);
        expect(blob.bytes).toBe(Buffer.byteLength(text));
      }),
      { numRuns: 120 },
    );
  });

  it("stores huge text byte for byte across write chunks (surrogate pairs at the boundaries)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", minLength: 1, maxLength: 50 }), fc.integer({ min: -3, max: 3 }), async (piece, shift) => {
        const pad = "a".repeat(WRITE_CHUNK_CHARS + shift);
        const text = `${pad}😀${piece}`.repeat(3);
        const blob = await store.put(text);
        expect(readFileSync(blob.path).equals(Buffer.from(text, "utf8"))).toBe(true);
      }),
      { numRuns: 6 },
    );
  });

  it("reading a blob back in pages (bytes or lines, any page size) reconstructs it exactly", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyText, largeText),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 400 }),
        async (text, anyPageBytes, anyPageLines) => {
          const original = Buffer.from(text, "utf8");
          // At most ~200 pages per blob keeps a run short; small pages still get small blobs.
          const pageBytes = Math.max(anyPageBytes, Math.ceil(original.length / 200));
          const pageLines = Math.max(anyPageLines, Math.ceil(text.split("\n").length / 100));
          const { id } = await store.put(text);

          const raw: Buffer[] = [];
          for (let offset = 0; offset < original.length; offset += pageBytes) raw.push(await store.readBytes(id, offset, pageBytes));
          expect(Buffer.concat(raw).equals(original)).toBe(true);

          let pages = "";
          let offset = 0;
          for (let guard = 0; guard <= original.length; guard++) {
            const page = await store.readBytePage(id, offset, pageBytes);
            expect(page.offset).toBe(offset);
            expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(Math.max(pageBytes, 4));
            pages += page.text;
            offset = page.nextOffset;
            if (offset >= page.totalBytes) break;
          }
          expect(pages).toBe(original.toString("utf8"));

          const lines: string[] = [];
          let line: number | undefined = 1;
          while (line !== undefined) {
            const page = await store.readLinePage(id, line, pageLines, original.length + 1);
            expect(page.lines.length).toBeGreaterThan(0);
            lines.push(...page.lines);
            line = page.nextLine;
          }
          expect(lines.join("\n")).toBe(original.toString("utf8"));
        },
      ),
      { numRuns: 80 },
    );
  });

  it("the safe grep (batched, pipelined, literal or worker) finds exactly the lines a direct RegExp finds", async () => {
    const line = fc.string({ unit: fc.constantFrom("a", "b", "A", " ", "x", "1", "\t"), maxLength: 20 });
    await fc.assert(
      fc.asyncProperty(
        // Up to 5,000 lines: several 2,048-line batches.
        fc.array(line, { minLength: 1, maxLength: 5_000, size: "max" }),
        fc.constantFrom("a", "ab", "A B", "a+b", "^x", "1$", "(a|b)x", "b\\s*1", "(?<=a)b"),
        fc.integer({ min: 1, max: 6_000 }),
        fc.integer({ min: 1, max: 3_000 }),
        async (lines, source, fromLine, maxMatches) => {
          const { path } = await store.put(lines.join("\n"));
          const got = await grepBlob(path, source, { fromLine, maxMatches, maxBytes: 1 << 30 });
          const re = new RegExp(source, "i");
          const hits = lines.map((l, i) => ({ l, n: i + 1 })).filter(({ l, n }) => n >= fromLine && re.test(l));
          expect(got.matches.map((m) => m.line)).toEqual(hits.slice(0, maxMatches).map((h) => h.n));
          expect(got.matches.map((m) => m.text)).toEqual(hits.slice(0, maxMatches).map((h) => h.l));
          expect(got.nextLine).toBe(hits[maxMatches]?.n);
        },
      ),
      { numRuns: 25 },
    );
  });
});

/**
 * Property: any output indexed can be found by a distinctive token it contains, and the hit's
 * blob_read call plus the blob give it back byte-exact.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../lib/blobs/index.ts";
import { probeSqlite } from "../../lib/sqlite/index.ts";
import { recallHarness, type RecallHarness } from "../unit/plugins/recall/recall-harness.ts";

const fts = probeSqlite().fts5;

const line = fc.string({ unit: fc.constantFrom(...'abc XYZ_.-/{}:"0189 äé✓\t'.split("")), maxLength: 120, size: "large" });

describe.skipIf(!fts)("recall property", () => {
  let h: RecallHarness;
  beforeAll(async () => {
    h = await recallHarness({ thresholdBytes: 4_096 });
  });
  afterAll(async () => h?.dispose());

  it("finds every output by its distinctive token and reads it back byte-exact", async () => {
    let n = 0;
    let maxBytes = 0;
    const store = new BlobStore({ dir: h.blobDir });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 400, size: "large" }), fc.nat(), fc.boolean(), async (lines, at, camel) => {
        n++;
        const token = camel ? `distinctToken${n}Zq` : `zq_distinct_${n}`;
        const pos = at % lines.length;
        const withToken = [...lines];
        withToken[pos] = `${withToken[pos]} ${token} `;
        const text = withToken.join("\n");
        const out = await h.result("bash", `prop-${n}`, text, { command: `gen ${n}` });
        const answer = await h.call("context_search", { query: token });
        expect(answer).toContain(`gen ${n}`);
        const args = JSON.parse(answer.match(/blob_read\((\{.*?\})\)/)![1]!) as { blobId: string; offset: number; limit: number };
        // the hit names the stored blob by the first 12 hex digits of its id, and they lead back to it
        const fullId = String(out.details!.blobId);
        expect(fullId).toMatch(/^[0-9a-f]{64}$/);
        expect(args.blobId).toBe(fullId.slice(0, 12));
        expect(await store.resolve(args.blobId)).toBe(fullId);
        // the line range holds the token
        expect(withToken.slice(args.offset - 1, args.offset - 1 + args.limit).join("\n")).toContain(token);
        // the whole blob is the output, byte for byte
        const stored = await store.locate(fullId);
        expect(readFileSync(stored.path)).toEqual(Buffer.from(text, "utf8"));
        // and blob_read's line page is the exact lines of the hit's range
        const page = await h.call("blob_read", args);
        const pageLines = page.split("\n").slice(1, 1 + Math.min(args.limit, withToken.length - args.offset + 1));
        expect(pageLines).toEqual(withToken.slice(args.offset - 1, args.offset - 1 + pageLines.length));
        maxBytes = Math.max(maxBytes, Buffer.byteLength(text));
      }),
      { numRuns: 25 },
    );
    expect(maxBytes).toBeGreaterThan(4_096); // some outputs were cut by blobs, some not
  });
});

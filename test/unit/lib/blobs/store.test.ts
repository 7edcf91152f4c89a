import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobStore, isBlobId, resolveBlobDir, WRITE_CHUNK_CHARS } from "../../../../lib/blobs/index.ts";
import { isGovernorError } from "pi-governor";
import { createHash } from "node:crypto";

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

describe("BlobStore", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-blobs-"));
    dir = join(root, "cache", "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("stores content under its sha256 in a private directory, byte for byte", async () => {
    const store = new BlobStore({ dir });
    const text = "héllo wörld ✓ 𝄞\n".repeat(100);
    const blob = await store.put(text);
    expect(blob.id).toBe(sha(Buffer.from(text, "utf8")));
    expect(blob.path).toBe(join(dir, `${blob.id}.txt`));
    expect(blob.bytes).toBe(Buffer.byteLength(text));
    expect(readFileSync(blob.path).equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(blob.path).mode & 0o777).toBe(0o600);
    expect(store.referencedIds().has(blob.id)).toBe(true);
  });

  it("names JSON documents .json, and finds either kind by id", async () => {
    const store = new BlobStore({ dir });
    const json = await store.put('  {"a": [1, 2, 3]}\n');
    expect(json.path.endsWith(".json")).toBe(true);
    expect((await store.locate(json.id)).path).toBe(json.path);
  });

  it("does not split a surrogate pair at a write-chunk boundary", async () => {
    const store = new BlobStore({ dir });
    const text = "a".repeat(WRITE_CHUNK_CHARS - 1) + "𝄞" + "b".repeat(10);
    const blob = await store.put(text);
    expect(readFileSync(blob.path).equals(Buffer.from(text, "utf8"))).toBe(true);
  });

  it("stores identical content once, with parallel writers", async () => {
    const store = new BlobStore({ dir });
    const text = "same content ".repeat(50_000);
    const results = await Promise.all(Array.from({ length: 16 }, () => new BlobStore({ dir }).put(text)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.some((r) => r.created)).toBe(true);
    const names = readdirSync(dir);
    expect(names).toEqual([`${results[0]!.id}.txt`]);
    expect(readFileSync(join(dir, names[0]!), "utf8")).toBe(text);
    const again = await store.put(text);
    expect(again.created).toBe(false);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it("a crash between write and rename leaves no blob under a final name: the temp file is never listed or read, and is cleaned", async () => {
    const store = new BlobStore({ dir, tempGraceMs: 60_000 });
    await store.put("a complete blob");
    // What a crash after writing half the bytes and before the rename leaves behind.
    const partial = "partial content that never got its final name";
    const tempName = `.tmp-99999-deadbeefdeadbeef`;
    writeFileSync(join(dir, tempName), partial.slice(0, 10), { mode: 0o600 });
    const { entries, count } = await store.list();
    expect(count).toBe(1);
    expect(entries.map((e) => e.path)).not.toContain(join(dir, tempName));
    // The partial file has no id: asking for the id of the full content finds nothing.
    await expect(store.locate(sha(partial))).rejects.toThrow(/no blob/);
    // The temp name is not an id, so it cannot be read through the store either.
    await expect(store.locate(tempName)).rejects.toThrow(/invalid blob id/);
    // A fresh temp file may belong to a writer in progress: kept. A stale one is cleaned.
    expect((await store.sweep()).tempRemoved).toBe(0);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, tempName), old, old);
    expect((await store.sweep()).tempRemoved).toBe(1);
    expect(readdirSync(dir).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
  });

  it("rejects malformed ids with a clear error and no file access outside the cache", async () => {
    const store = new BlobStore({ dir });
    const bad = [
      "../../etc/passwd",
      "/etc/passwd",
      "A".repeat(64),
      "a".repeat(63),
      "a".repeat(65),
      `${"a".repeat(64)}.txt`,
      `${"a".repeat(63)}/`,
      "",
      "a".repeat(64) + "\0",
    ];
    for (const id of bad) {
      const error = await store.locate(id).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isGovernorError(error), id).toBe(true);
      expect((error as Error).message).toMatch(/invalid blob id .*64 lowercase hex/);
    }
    expect(() => store.reference("nope")).toThrow(/invalid blob id/);
    expect(isBlobId("f".repeat(64))).toBe(true);
  });

  it("says an unknown but well-formed id is gone and what to do", async () => {
    const store = new BlobStore({ dir });
    const error = await store.locate("0".repeat(64)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no blob 000000000000…/);
    expect((error as { agentMessage: string }).agentMessage).toMatch(/Re-run/);
  });

  it("retention removes blobs past their age and the oldest over the size limit, never referenced ones", async () => {
    let now = Date.now();
    const writer = new BlobStore({ dir });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const b = await writer.put(`blob ${i} `.repeat(100)); // 700 bytes each
      const t = new Date(now - (10 - i) * 86_400_000); // 10, 9, 8, 7, 6 days old
      utimesSync(b.path, t, t);
      ids.push(b.id);
    }
    // A fresh process whose session points to blob 0 only.
    const store = new BlobStore({ dir, maxAgeDays: 8.5, maxBytes: 2_100, now: () => now });
    store.reference(ids[0]!);
    const report = await store.sweep();
    const left = (await store.list()).entries.map((e) => e.id);
    // 10 and 9 days: too old (blob 0 kept: referenced). Then over 2,100 bytes: the oldest unreferenced (8 days) goes.
    expect(left.sort()).toEqual([ids[0], ids[3], ids[4]].sort());
    expect(report.removed).toBe(2);
    expect(report.remainingBytes).toBe(2_100);
    now += 30 * 86_400_000;
    await store.sweep();
    expect((await store.list()).entries.map((e) => e.id)).toEqual([ids[0]]);
  });

  it("lists newest first and purges everything", async () => {
    const store = new BlobStore({ dir });
    const a = await store.put("first");
    utimesSync(a.path, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
    const b = await store.put("second");
    const listed = await store.list();
    expect(listed.entries.map((e) => e.id)).toEqual([b.id, a.id]);
    expect(listed.totalBytes).toBe(11);
    expect(listed.entries[0]).toMatchObject({ bytes: 6, path: b.path });
    expect(await store.purge()).toEqual({ removed: 2, freedBytes: 11 });
    expect((await store.list()).count).toBe(0);
  });

  it("reads pages by bytes on character boundaries, by lines, and greps, with bounded output", async () => {
    const store = new BlobStore({ dir });
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1} ✓`).join("\n");
    const { id } = await store.put(text);
    const page = await store.readBytePage(id, 0, 10);
    expect(page.text).toBe("line 1 ✓");
    expect(page.nextOffset).toBe(Buffer.byteLength("line 1 ✓"));
    // An offset inside the 3-byte ✓ moves back to its first byte.
    const inside = await store.readBytePage(id, 8, 10);
    expect(inside.offset).toBe(7);
    const lines = await store.readLinePage(id, 10, 5, 10_000);
    expect(lines.lines).toEqual(["line 10 ✓", "line 11 ✓", "line 12 ✓", "line 13 ✓", "line 14 ✓"]);
    expect(lines.nextLine).toBe(15);
    const small = await store.readLinePage(id, 1, 1000, 100);
    expect(Buffer.byteLength(small.lines.join("\n"))).toBeLessThanOrEqual(100);
    const last = await store.readLinePage(id, 999, 10, 10_000);
    expect(last.lines).toEqual(["line 999 ✓", "line 1000 ✓"]);
    expect(last.nextLine).toBeUndefined();
    const hits = await store.grep(id, "line 5\\d\\d ", { maxMatches: 3 });
    expect(hits.matches.map((m) => m.line)).toEqual([500, 501, 502]);
    expect(hits.nextLine).toBe(503);
  });

  it("cuts a line longer than the page and says where it starts", async () => {
    const store = new BlobStore({ dir });
    const { id } = await store.put(`short\n${"x".repeat(5_000)}\nend`);
    const page = await store.readLinePage(id, 2, 10, 1_000);
    expect(page.lines).toEqual(["x".repeat(1_000)]);
    expect(page.cutLine).toEqual({ line: 2, byteOffset: 6, lineBytes: 5_000 });
    expect(page.nextLine).toBe(3);
  });

  it("resolves ~ and relative directories", () => {
    expect(resolveBlobDir("~/.pi/cache/x", { home: "/home/u" })).toBe("/home/u/.pi/cache/x");
    expect(resolveBlobDir("cache", { cwd: "/repo" })).toBe("/repo/cache");
    expect(resolveBlobDir("/abs/dir")).toBe("/abs/dir");
  });
});

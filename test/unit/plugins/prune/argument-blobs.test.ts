import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "pi-governor/host";
import type { LogRecord } from "pi-governor";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { Redactor } from "../../../../lib/redact/index.ts";
import { ArgumentBlobWriter } from "../../../../plugins/prune/argument-blobs.ts";
import { argumentsBlobText, blobIdOf, cutToolCallArguments } from "../../../../plugins/prune/arguments.ts";

function blobOf(args: unknown): { id: string; text: string } {
  const text = argumentsBlobText(args);
  return { id: blobIdOf(text), text };
}

describe("ArgumentBlobWriter", () => {
  let root: string;
  let records: LogRecord[];
  const logger = () => createLogger("prune", (r) => records.push(r));
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-argwriter-"));
    records = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("stores the full arguments a cut names, under the id its marker shows", async () => {
    const store = new BlobStore({ dir: join(root, "blobs") });
    const writer = new ArgumentBlobWriter(store, logger());
    const args = { path: "src/a.ts", content: "line ✓\n".repeat(4000) };
    const message = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: args }] };
    const cut = cutToolCallArguments(message, () => "large", { maxArgChars: 2000, argExcerptChars: 240, isProtected: () => false, blobs: true });
    expect(cut.blobs).toHaveLength(1);
    writer.write(cut.blobs);
    await writer.flush();
    const { id, text } = cut.blobs[0]!;
    expect(JSON.stringify(cut.replacement)).toContain(id.slice(0, 12));
    const file = join(store.dir, `${id}.json`);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(args);
    expect(store.referencedIds().has(id)).toBe(true);
    expect((await store.readBytePage(id, 0, 100_000)).text).toBe(text);
    expect(records).toEqual([]);
  });

  it("stores the arguments redacted, under the id of the redacted text the marker names", async () => {
    const token = ["ghp", "_", "ArgBlobs".repeat(4), "Xx77"].join("");
    const store = new BlobStore({ dir: join(root, "blobs") });
    const writer = new ArgumentBlobWriter(store, logger());
    const args = { path: ".env", content: `GITHUB=${token}\n${"filler line\n".repeat(400)}` };
    const message = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: args }] };
    const redactor = new Redactor();
    const cut = cutToolCallArguments(message, () => "large", {
      maxArgChars: 2000,
      argExcerptChars: 240,
      isProtected: () => false,
      blobs: true,
      redact: (t) => redactor.redact(t),
    });
    writer.write(cut.blobs);
    await writer.flush();
    const { id } = cut.blobs[0]!;
    const marker = (JSON.stringify(cut.replacement).match(/blob_read\(\{\\"blobId\\":\\"([0-9a-f]+)\\"\}\)/) ?? [])[1];
    // The marker names the blob by the first 12 hex digits of its id, and they lead back to it.
    expect(marker).toBe(id.slice(0, 12));
    expect(await store.resolve(marker)).toBe(id);
    const stored = readFileSync(join(store.dir, `${id}.json`), "utf8");
    expect(stored).toContain("[redacted:github-token]");
    expect(stored).not.toContain(token);
    // the id is the id of the redacted text stored
    expect(blobIdOf(stored)).toBe(id);
    expect(records).toEqual([]);
  });

  it("writes each id once per session", async () => {
    const store = new BlobStore({ dir: join(root, "blobs") });
    const put = vi.spyOn(store, "put");
    const writer = new ArgumentBlobWriter(store, logger());
    const a = blobOf({ content: "a".repeat(5000) });
    const b = blobOf({ content: "b".repeat(5000) });
    writer.write([a]);
    writer.write([a, b]);
    await writer.flush();
    writer.write([b, a]);
    await writer.flush();
    expect(put).toHaveBeenCalledTimes(2);
    expect(readdirSync(store.dir).sort()).toEqual([`${a.id}.json`, `${b.id}.json`].sort());
  });

  it("does nothing without a store", async () => {
    const writer = new ArgumentBlobWriter(undefined, logger());
    writer.write([blobOf({ x: 1 })]);
    await writer.flush();
    expect(records).toEqual([]);
  });

  it("logs one warning for an unusable directory, never throws, leaves no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // A regular file where the cache directory should be, and a group/world-writable directory.
      const blocker = join(root, "blocker");
      writeFileSync(blocker, "not a directory");
      const open = join(root, "open");
      mkdirSync(open);
      chmodSync(open, 0o777);
      for (const dir of [join(blocker, "blobs"), open]) {
        records = [];
        const writer = new ArgumentBlobWriter(new BlobStore({ dir }), logger());
        expect(() => writer.write([blobOf({ a: "x".repeat(3000) }), blobOf({ b: "y".repeat(3000) })])).not.toThrow();
        writer.write([blobOf({ c: 1 })]);
        await expect(writer.flush()).resolves.toBeUndefined();
        expect(records).toHaveLength(1);
        expect(records[0]!.level).toBe("warn");
        expect(records[0]!.message).toContain(dir);
        expect(records[0]!.message).toContain("blobs.dir");
      }
      expect(readdirSync(open)).toEqual([]);
      expect(statSync(blocker).isFile()).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("warns when the store names another id than the marker (a dangling way back)", async () => {
    const store = new BlobStore({ dir: join(root, "blobs") });
    const writer = new ArgumentBlobWriter(store, logger());
    writer.write([{ id: "0".repeat(64), text: "something else" }]);
    await writer.flush();
    expect(records).toHaveLength(1);
    expect(records[0]!.message).toContain("another id");
    expect(records[0]!.data).toMatchObject({ expected: "0".repeat(64), stored: blobIdOf("something else") });
    expect(existsSync(join(store.dir, `${blobIdOf("something else")}.txt`))).toBe(true);
  });
});

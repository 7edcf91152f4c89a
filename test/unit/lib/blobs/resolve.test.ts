/**
 * BlobStore.resolve: a blob id prefix from the model (texts sent to it show the first 12 hex digits)
 * finds the one stored blob; every crafted prefix is refused before it reaches a file name.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGovernorError } from "pi-governor";
import { assertBlobIdPrefix, BlobStore, blobIdPrefix } from "../../../../lib/blobs/index.ts";

describe("BlobStore.resolve", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-resolve-"));
    dir = join(root, "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const refusal = async (store: BlobStore, value: unknown) => {
    const error = await store.resolve(value).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isGovernorError(error) && error.code).toBe("GOV_INVALID_INPUT");
    return (error as Error).message;
  };

  it("finds a blob from its first 12 hex digits (or 8, or all 64, in any case)", async () => {
    const store = new BlobStore({ dir });
    const { id } = await store.put("the full output\n".repeat(50));
    expect(await store.resolve(blobIdPrefix(id))).toBe(id);
    expect(await store.resolve(id.slice(0, 8))).toBe(id);
    expect(await store.resolve(` ${id.slice(0, 20).toUpperCase()} `)).toBe(id);
    expect(await store.resolve(id)).toBe(id);
    expect(blobIdPrefix(id)).toBe(id.slice(0, 12));
    expect(blobIdPrefix("not-a-blob-id")).toBe("not-a-blob-id");
  });

  it("says a prefix is ambiguous and names the blobs it matches; more digits settle it", async () => {
    const store = new BlobStore({ dir });
    const { id } = await store.put("one");
    // A second name under the same 12 digits (a sha256 clash is not craftable; the file is planted).
    const twin = `${id.slice(0, 12)}${"0".repeat(52)}`;
    writeFileSync(join(dir, `${twin}.txt`), "planted", { mode: 0o600 });
    const message = await refusal(store, id.slice(0, 12));
    expect(message).toContain(`blob id prefix ${id.slice(0, 12)} is ambiguous: 2 stored blobs start with it`);
    expect(message).toContain(id);
    expect(message).toContain(twin);
    expect(await store.resolve(id.slice(0, 13) === twin.slice(0, 13) ? id : id.slice(0, 13))).toBe(id);
  });

  it("refuses crafted prefixes: too short, not hex, huge, path-like, not a string", async () => {
    const store = new BlobStore({ dir });
    const { id } = await store.put("x".repeat(100));
    expect(await refusal(store, id.slice(0, 7))).toMatch(/invalid blob id .*first 8 or more/);
    expect(await refusal(store, "")).toMatch(/invalid blob id/);
    for (const crafted of [
      "../../etc/passwd",
      `${id.slice(0, 12)}/../x`,
      `${id.slice(0, 12)}.txt`,
      "*",
      `${id.slice(0, 10)}.*`,
      "g".repeat(12),
      `${id.slice(0, 12)}\u0000`,
      "/etc/passwd",
      `${id.slice(0, 12)}\n`.repeat(2),
    ]) {
      expect(await refusal(store, crafted)).toMatch(/invalid blob id/);
    }
    expect(await refusal(store, `${id}0`)).toMatch(/invalid blob id/); // 65 digits
    const huge = "a".repeat(1_000_000);
    const message = await refusal(store, huge);
    expect(message.length).toBeLessThan(400);
    expect(await refusal(store, 12345678)).toContain("invalid blob id number");
    expect(await refusal(store, { blobId: id })).toContain("invalid blob id object");
    expect(() => assertBlobIdPrefix(["abcdef12"])).toThrow(/invalid blob id/);
  });

  it("matches only blob file names: temporary files, other names and a link named like a prefix are not blobs", async () => {
    const store = new BlobStore({ dir });
    const { id } = await store.put("kept");
    const prefix = "abcdef0123";
    writeFileSync(join(dir, `.tmp-${prefix}${"1".repeat(54)}.txt`), "temp", { mode: 0o600 });
    writeFileSync(join(dir, `${prefix}${"1".repeat(54)}.bin`), "other", { mode: 0o600 });
    writeFileSync(join(dir, `${prefix}-notes`), "other", { mode: 0o600 });
    mkdirSync(join(dir, `${prefix}${"2".repeat(54)}.d`));
    expect(await refusal(store, prefix)).toMatch(/no blob starting with abcdef0123/);
    // A link under a blob's name resolves (it is a name match) but is never read through.
    symlinkSync("/etc/passwd", join(dir, `${prefix}${"3".repeat(54)}.txt`));
    const linked = await store.resolve(prefix);
    await expect(store.readLinePage(linked, 1, 10, 1000)).rejects.toThrow(/no blob|symbolic link/);
    expect(await store.resolve(id.slice(0, 12))).toBe(id);
  });

  it("answers no blob, not an error about the directory, when the cache does not exist yet", async () => {
    const store = new BlobStore({ dir: join(root, "never-created") });
    expect(await refusal(store, "0123456789ab")).toMatch(/no blob starting with 0123456789ab/);
  });
});

/**
 * writeBlobAtomically: content-addressed, private, complete-or-absent files, and hostile cache
 * contents (a link planted at the final name, a FIFO or a link as the source file) never written
 * through, never blocking, never leaving a temporary file behind.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WRITE_CHUNK_CHARS, writeBlobAtomically } from "../../../../lib/blobs/atomic-write.ts";

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gov-atomic-"));
  dir = join(root, "cache");
  mkdirSync(dir, { mode: 0o700 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const temps = () => readdirSync(dir).filter((n) => n.startsWith(".tmp-"));

describe("writeBlobAtomically", () => {
  it("stores a string as UTF-8 under its sha256, private (0600), .txt for text and .json for JSON", async () => {
    const text = "héllo wörld\n";
    const w = await writeBlobAtomically(dir, text);
    expect(w).toEqual({ id: sha(text), path: join(dir, `${sha(text)}.txt`), bytes: Buffer.byteLength(text), created: true });
    expect(readFileSync(w.path, "utf8")).toBe(text);
    expect(statSync(w.path).mode & 0o777).toBe(0o600);
    const json = JSON.stringify({ a: [1, 2, 3] });
    expect((await writeBlobAtomically(dir, json)).path).toBe(join(dir, `${sha(json)}.json`));
    expect(temps()).toEqual([]);
  });

  it("stores bytes as they are, and another file's bytes streamed", async () => {
    const bytes = new Uint8Array([0, 255, 1, 254, 10]);
    const w = await writeBlobAtomically(dir, bytes);
    expect([w.id, w.bytes]).toEqual([sha(bytes), 5]);
    expect(new Uint8Array(readFileSync(w.path))).toEqual(bytes);
    const source = join(root, "bash-output.log");
    const big = "line of output\n".repeat(20_000); // several 64 KiB chunks
    writeFileSync(source, big);
    const copied = await writeBlobAtomically(dir, { file: source });
    expect([copied.id, copied.bytes, readFileSync(copied.path, "utf8") === big]).toEqual([sha(big), big.length, true]);
  });

  it("never splits a surrogate pair across chunks: the stored bytes are the string's UTF-8", async () => {
    const text = `${"a".repeat(WRITE_CHUNK_CHARS - 1)}😀${"b".repeat(10)}`; // the pair straddles the chunk boundary
    const w = await writeBlobAtomically(dir, text);
    expect(w.id).toBe(sha(text));
    expect(readFileSync(w.path, "utf8")).toBe(text);
  });

  it("stores identical content once: the second write keeps the file, refreshes its age and says created: false", async () => {
    const first = await writeBlobAtomically(dir, "same");
    const old = new Date(Date.now() - 86_400_000);
    utimesSync(first.path, old, old);
    const second = await writeBlobAtomically(dir, "same");
    expect(second).toEqual({ ...first, created: false });
    expect(statSync(second.path).mtimeMs).toBeGreaterThan(old.getTime() + 60_000);
    expect(readdirSync(dir)).toEqual([`${first.id}.txt`]);
  });

  it("replaces a link planted at the final name instead of writing through it", async () => {
    const victim = join(root, "victim.txt");
    writeFileSync(victim, "precious");
    const text = "attacker knows this content";
    const target = join(dir, `${sha(text)}.txt`);
    symlinkSync(victim, target);
    const w = await writeBlobAtomically(dir, text);
    expect(w.created).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, "utf8")).toBe(text);
  });

  it("a planted link to a file with the same bytes is not taken for the stored blob", async () => {
    // A link's own size is the length of the path it holds: make it equal to the content's size.
    const lookalike = join(root, "lookalike.txt");
    const text = "x".repeat(Buffer.byteLength(lookalike));
    writeFileSync(lookalike, text);
    const target = join(dir, `${sha(text)}.txt`);
    symlinkSync(lookalike, target);
    const w = await writeBlobAtomically(dir, text);
    expect(w.created).toBe(true);
    expect(lstatSync(target).isFile()).toBe(true);
  });

  it("a directory planted at the final name fails the write and leaves no temporary file", async () => {
    const text = "blocked";
    mkdirSync(join(dir, `${sha(text)}.txt`));
    await expect(writeBlobAtomically(dir, text)).rejects.toThrow();
    expect(temps()).toEqual([]);
  });

  it("refuses a FIFO as the source at once, without blocking, and cleans up", async () => {
    const fifo = join(root, "fifo");
    execFileSync("mkfifo", [fifo]);
    await expect(writeBlobAtomically(dir, { file: fifo })).rejects.toThrow(/not a regular file/);
    expect(temps()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a link or a device as the source, and a missing source", async () => {
    const real = join(root, "real.log");
    writeFileSync(real, "secret");
    const link = join(root, "link.log");
    symlinkSync(real, link);
    await expect(writeBlobAtomically(dir, { file: link })).rejects.toMatchObject({ code: "ELOOP" });
    await expect(writeBlobAtomically(dir, { file: "/dev/zero" })).rejects.toThrow(/not a regular file/);
    await expect(writeBlobAtomically(dir, { file: join(root, "missing") })).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(dir)).toEqual([]);
    expect(readlinkSync(link)).toBe(real);
  });
});

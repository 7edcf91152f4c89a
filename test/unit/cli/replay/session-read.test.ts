/**
 * A session file is untrusted input (a folder passed to replay may come with a repository): its kind
 * and size are checked on the opened file before a byte is read, and it is read in bounded chunks.
 */
import { execFileSync } from "node:child_process";
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run, SAMPLE_SESSION } from "../../../../cli/replay/command.ts";
import { readSessionFile } from "../../../../cli/replay/session-file.ts";

const dir = mkdtempSync(join(tmpdir(), "session-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function replay(argv: string[]) {
  let out = "";
  let err = "";
  const code = await run(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const GiB = 1024 ** 3;

describe("reading a session file", () => {
  it("refuses a sparse 1 GiB file by its size, before reading it (peak memory stays far below the file)", async () => {
    const big = join(dir, "big.jsonl");
    const fd = openSync(big, "w");
    ftruncateSync(fd, GiB);
    closeSync(fd);
    const before = process.resourceUsage().maxRSS * 1024;
    const r = await replay([big, "--no-chart", "--no-turns"]);
    const grew = process.resourceUsage().maxRSS * 1024 - before;
    expect(r.err).toMatch(/big\.jsonl is larger than 256 MiB \(1,073,741,824 bytes\).*--max-file-mb/);
    expect(r.code).toBe(1);
    expect(grew).toBeLessThan(128 * 1024 ** 2);
    // The limit is the user's to raise, within its own bound.
    expect((await replay([big, "--max-file-mb", "0"])).code).toBe(2);
    expect((await replay([big, "--max-file-mb", "100000"])).err).toMatch(/--max-file-mb/);
  });

  it("refuses a FIFO without hanging, and a link to a device", async () => {
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    const r = await replay([fifo]);
    expect(r.err).toMatch(/fifo\.jsonl: it is not a regular file \(a FIFO\): pass a session \.jsonl file/);
    expect(r.code).toBe(1);
    const zero = join(dir, "zero.jsonl");
    symlinkSync("/dev/zero", zero);
    const z = await replay([zero]);
    expect(z.err).toMatch(/zero\.jsonl: it is not a regular file \(a device\)/);
  });

  it("in a folder, reads no link: a link to a session elsewhere is refused, a real file replays", async () => {
    const folder = mkdtempSync(join(dir, "folder-"));
    writeFileSync(join(folder, "a.jsonl"), readFileSync(SAMPLE_SESSION));
    symlinkSync(SAMPLE_SESSION, join(folder, "b.jsonl"));
    const r = await replay([folder, "--no-chart", "--no-turns"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pi-governor replay: .*a\.jsonl\n/);
    expect(r.out).toMatch(/^34 turns, 117 model calls/m);
  });

  it("reads a session in chunks: lines that cross a chunk boundary, multi-byte characters split across it", () => {
    const text = readFileSync(SAMPLE_SESSION, "utf8");
    const whole = readSessionFile(SAMPLE_SESSION);
    for (const chunkBytes of [7, 4096]) {
      const chunked = readSessionFile(SAMPLE_SESSION, undefined, { chunkBytes });
      expect(chunked.requests.length).toBe(whole.requests.length);
      expect(chunked.problems).toEqual(whole.problems);
    }
    const accents = join(dir, "accents.jsonl");
    const withAccents = text.replace(/"text":"/, '"text":"été ✓ 🙂 ');
    writeFileSync(accents, withAccents);
    const a = readSessionFile(accents, undefined, { chunkBytes: 3 });
    expect(a.problems).toEqual(whole.problems);
    expect(JSON.stringify(a.requests.at(-1)!.messages)).toContain("été ✓ 🙂 ");
  });

  it("refuses a file over the limit it is given", () => {
    const file = join(dir, "grows.jsonl");
    writeFileSync(file, readFileSync(SAMPLE_SESSION));
    const size = readFileSync(file).length;
    expect(() => readSessionFile(file, undefined, { maxBytes: size - 1 })).toThrow(/larger than/);
  });
});

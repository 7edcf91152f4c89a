import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { piFullOutputPath, readPiFullOutput, readPiFullOutputEnds } from "../../../../lib/pi/index.ts";

// A private stand-in for pi's temp dir, so planted files never touch the real one.
let tempDir: string;
beforeEach(() => {
  tempDir = mkdtempSync(join(tmpdir(), "pigov-full-output-"));
});
afterEach(() => rmSync(tempDir, { recursive: true, force: true }));

const read = (fullOutputPath: unknown, maxBytes?: number) => readPiFullOutput({ fullOutputPath }, { tempDir, ...(maxBytes !== undefined ? { maxBytes } : {}) });

describe("readPiFullOutput", () => {
  it("reads a regular file directly inside pi's temp dir", async () => {
    const path = join(tempDir, "pi-mcp-0123abcd.txt");
    writeFileSync(path, "whole output ✓\n");
    expect(await read(path)).toBe("whole output ✓\n");
  });

  it("ignores details without a path, or with one that is not a string", async () => {
    expect(await readPiFullOutput(undefined, { tempDir })).toBeUndefined();
    expect(await read(42)).toBeUndefined();
    expect(await read({ path: "x" })).toBeUndefined();
  });

  it("refuses a planted symbolic link, even to a readable file", async () => {
    const secret = join(tempDir, "..", `pigov-secret-${process.pid}.txt`);
    writeFileSync(secret, "secret");
    try {
      symlinkSync(secret, join(tempDir, "pi-bash-link.log"));
      expect(await read(join(tempDir, "pi-bash-link.log"))).toBeUndefined();
    } finally {
      rmSync(secret, { force: true });
    }
  });

  it("refuses a FIFO without hanging", async () => {
    const fifo = join(tempDir, "pi-bash-fifo.log");
    try {
      execFileSync("mkfifo", [fifo]);
    } catch {
      return; // no mkfifo on this OS
    }
    expect(await read(fifo)).toBeUndefined();
  });

  it("refuses a directory, a missing file and a file over the bound", async () => {
    mkdirSync(join(tempDir, "pi-dir"));
    expect(await read(join(tempDir, "pi-dir"))).toBeUndefined();
    expect(await read(join(tempDir, "pi-missing.txt"))).toBeUndefined();
    writeFileSync(join(tempDir, "pi-big.txt"), "x".repeat(2_000));
    expect(await read(join(tempDir, "pi-big.txt"), 1_000)).toBeUndefined();
    expect(await read(join(tempDir, "pi-big.txt"), 2_000)).toHaveLength(2_000);
  });

  it("refuses paths outside pi's temp dir: relative, nested, traversing out, with a NUL, overlong", async () => {
    mkdirSync(join(tempDir, "sub"));
    writeFileSync(join(tempDir, "sub", "pi-nested.txt"), "nested");
    writeFileSync(join(tempDir, "pi-ok.txt"), "ok");
    expect(await read("pi-ok.txt")).toBeUndefined();
    expect(await read(join(tempDir, "sub", "pi-nested.txt"))).toBeUndefined();
    expect(await read(`${tempDir}/sub/../../etc/passwd`)).toBeUndefined();
    expect(await read("/etc/passwd")).toBeUndefined();
    expect(await read(`${join(tempDir, "pi-ok.txt")}\0.txt`)).toBeUndefined();
    expect(await read(join(tempDir, `${"a".repeat(5_000)}.txt`))).toBeUndefined();
    // `..` that stays inside is the same file.
    expect(piFullOutputPath({ fullOutputPath: `${tempDir}/sub/../pi-ok.txt` }, tempDir)).toBe(join(tempDir, "pi-ok.txt"));
  });
});

describe("readPiFullOutputEnds", () => {
  it("reads the first and last bytes of a file of any size, cut at character boundaries", async () => {
    const path = join(tempDir, "pi-bash-ends.log");
    writeFileSync(path, `${"é".repeat(10)}${"m".repeat(1_000)}${"ü".repeat(10)}`);
    const ends = (await readPiFullOutputEnds({ fullOutputPath: path }, 15, { tempDir }))!;
    expect(ends.whole).toBe(false);
    expect(ends.head).toBe("é".repeat(7));
    expect(ends.tail).toBe("ü".repeat(7));
  });

  it("gives the whole text once when it fits both ends, and nothing for a path it does not trust", async () => {
    const path = join(tempDir, "pi-bash-small.log");
    writeFileSync(path, "small output");
    expect(await readPiFullOutputEnds({ fullOutputPath: path }, 100, { tempDir })).toEqual({ head: "small output", tail: "small output", whole: true });
    symlinkSync(path, join(tempDir, "pi-bash-link2.log"));
    expect(await readPiFullOutputEnds({ fullOutputPath: join(tempDir, "pi-bash-link2.log") }, 100, { tempDir })).toBeUndefined();
    expect(await readPiFullOutputEnds({ fullOutputPath: "/etc/passwd" }, 100, { tempDir })).toBeUndefined();
  });
});

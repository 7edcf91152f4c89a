/**
 * readBoundedFileSync (and openCheckedFileSync, the open and checks it makes) on planted files: links (out of the folder, dangling, at the last component),
 * FIFOs, devices, sockets, directories and files over the cap are refused with a reason, at once and
 * without reading past the cap; a missing file is null; the user's own links are followed when no
 * folder is set.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openCheckedFileSync, readBoundedFileSync, UnsafeFileError } from "../../../../lib/safe-file/index.ts";

let root: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gov-safe-file-"));
  project = join(root, "repo");
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const CAP = 1024;
/** The refusal reason for reading `path` (`within` null: no folder), or "read <n>" / "null" when it was not refused. */
function outcome(path: string, within: string | null = project, maxBytes = CAP): string {
  try {
    const r = readBoundedFileSync(path, { maxBytes, ...(within === null ? {} : { within }) });
    return r === null ? "null" : `read ${r.length}`;
  } catch (error) {
    if (error instanceof UnsafeFileError) {
      expect(error.path).toBe(path);
      return error.reason;
    }
    throw error;
  }
}

describe("readBoundedFileSync: plain files", () => {
  it("reads a regular file's bytes, up to and including the cap", () => {
    const f = join(project, "a.json");
    writeFileSync(f, "x".repeat(CAP));
    expect(readBoundedFileSync(f, { maxBytes: CAP, within: project })?.toString()).toBe("x".repeat(CAP));
    writeFileSync(f, "");
    expect(readBoundedFileSync(f, { maxBytes: CAP })?.length).toBe(0);
  });

  it("a missing file is null, not an error", () => {
    expect(outcome(join(project, "nope.json"))).toBe("null");
    expect(outcome(join(project, "nope.json"), null)).toBe("null");
  });

  it("a file over the cap is refused from its size alone (sparse 1 TiB file), naming the cap", () => {
    const f = join(project, "huge.json");
    writeFileSync(f, "");
    truncateSync(f, 2 ** 40);
    expect(outcome(f)).toBe(`it is larger than 1 KiB (${2 ** 40} bytes)`);
    writeFileSync(f, "y".repeat(1001));
    expect(outcome(f, project, 1000)).toBe("it is larger than 1000 bytes (1001 bytes)");
  });
});

describe("readBoundedFileSync: things that are not plain files", () => {
  it("a FIFO is refused at once instead of blocking the open", () => {
    const fifo = join(project, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    expect(outcome(fifo)).toBe("it is not a regular file (a FIFO)");
    expect(outcome(fifo, null)).toBe("it is not a regular file (a FIFO)");
  });

  it("devices are refused (followed links included, for the user's own files)", () => {
    const link = join(root, "zero.json");
    symlinkSync("/dev/zero", link);
    expect(outcome(link, null)).toBe("it is not a regular file (a device)");
    expect(outcome("/dev/null", null)).toBe("it is not a regular file (a device)");
  });

  it("a directory and a socket are refused", async () => {
    const dir = join(project, "dir.json");
    mkdirSync(dir);
    expect(outcome(dir)).toBe("it is not a regular file (a directory)");
    const sock = join(root, "s.sock");
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      // Linux refuses to open a socket file (ENXIO) before any fstat; elsewhere fstat names it. Either way
      // the reason is an UnsafeFileError, not a raw system error.
      expect(() => readBoundedFileSync(sock, { maxBytes: CAP })).toThrow(UnsafeFileError);
      expect(() => readBoundedFileSync(sock, { maxBytes: CAP })).toThrow(/it is not a regular file \(a socket/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("readBoundedFileSync: links inside a project", () => {
  it("a link out of the project is refused, naming where it leads", () => {
    const outside = join(root, "secret.txt");
    writeFileSync(outside, "secret");
    const link = join(project, "config.json");
    symlinkSync(outside, link);
    expect(outcome(link)).toBe(`it is a symbolic link to ${outside}, outside the project (${project})`);
  });

  it("a link through a linked folder out of the project is refused", () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "config.json"), "{}");
    symlinkSync(elsewhere, join(project, ".pi"));
    expect(outcome(join(project, ".pi", "config.json"))).toMatch(/^it is a symbolic link to .*elsewhere\/config\.json, outside the project/);
  });

  it("a link to a device is refused as leading out of the project", () => {
    const link = join(project, "zero.json");
    symlinkSync("/dev/zero", link);
    expect(outcome(link)).toMatch(/^it is a symbolic link to \/dev\/zero, outside the project/);
  });

  it("a dangling link is a planted link, not a missing file", () => {
    const link = join(project, "dangling.json");
    symlinkSync(join(root, "gone"), link);
    expect(outcome(link)).toBe("it is a symbolic link that leads nowhere");
  });

  it("a link that stays inside the project is read", () => {
    writeFileSync(join(project, "real.json"), '{"ok":true}');
    symlinkSync("real.json", join(project, "alias.json"));
    expect(outcome(join(project, "alias.json"))).toBe("read 11");
  });

  it("a sibling folder whose name starts like the project is outside it", () => {
    const sibling = `${project}-evil`;
    mkdirSync(sibling);
    writeFileSync(join(sibling, "c.json"), "{}");
    symlinkSync(join(sibling, "c.json"), join(project, "c.json"));
    expect(outcome(join(project, "c.json"))).toMatch(/outside the project/);
  });
});

describe("readBoundedFileSync: the user's own files (no folder)", () => {
  it("follows a link to a regular file (a dotfiles folder)", () => {
    const real = join(root, "dotfiles.json");
    writeFileSync(real, "{}");
    const link = join(root, "pi-governor.json");
    symlinkSync(real, link);
    expect(outcome(link, null)).toBe("read 2");
  });
});

describe("openCheckedFileSync", () => {
  const reason = (path: string, followLinks: boolean, maxBytes = CAP) => {
    try {
      const opened = openCheckedFileSync(path, { maxBytes, followLinks });
      if (!opened) return "null";
      closeSync(opened.fd);
      return `size ${opened.size}`;
    } catch (error) {
      return error instanceof UnsafeFileError ? error.reason : `threw ${(error as Error).message}`;
    }
  };

  it("hands back the descriptor and size of a regular file; refuses a FIFO, a device, a link when links are not followed, and a file over the cap", () => {
    const file = join(root, "a.jsonl");
    writeFileSync(file, "x".repeat(10));
    expect(reason(file, false)).toBe("size 10");
    expect(reason(join(root, "missing"), false)).toBe("null");
    execFileSync("mkfifo", [join(root, "fifo")]);
    expect(reason(join(root, "fifo"), true)).toBe("it is not a regular file (a FIFO)");
    symlinkSync("/dev/zero", join(root, "zero"));
    expect(reason(join(root, "zero"), true)).toBe("it is not a regular file (a device)");
    expect(reason(join(root, "zero"), false)).toBe("it is a symbolic link");
    symlinkSync(file, join(root, "link"));
    expect(reason(join(root, "link"), true)).toBe("size 10");
    expect(reason(join(root, "link"), false)).toBe("it is a symbolic link");
    expect(reason(file, false, 9)).toBe("it is larger than 9 bytes (10 bytes)");
  });
});

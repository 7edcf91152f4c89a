import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { checkBlobDir } from "../../../../lib/blobs/cache-dir.ts";
import { isErrorCategory } from "../../../../core/errors.ts";
import { blobsGovernor, callAndShape, recordingUi, textOf } from "../../../helpers/blobs-governor.ts";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("the blob cache is not trusted blindly", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-trust-"));
    dir = join(root, "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe("blob files", () => {
    it("refuses a planted symbolic link under a blob's name (blob_read does not serve its target)", async () => {
      const secret = join(root, "secret.txt");
      writeFileSync(secret, "root:x:0:0:the secret\n");
      mkdirSync(dir, { mode: 0o700 });
      const id = "a".repeat(64);
      symlinkSync(secret, join(dir, `${id}.txt`));
      const gov = await blobsGovernor({ blobs: { dir } }, { text: "" });
      for (const args of [{}, { unit: "bytes" }, { grep: "secret" }, { grep: "sec.et" }]) {
        const obs = await gov.pipeline.callTool("blob_read", { blobId: id, ...args });
        expect(obs.status).toBe("ERROR");
        expect(textOf(obs.content)).not.toContain("the secret");
      }
      // Opened directly (the name raced in after locate): refused with what it is and the fix.
      const store = new BlobStore({ dir });
      await expect(store.readBytePage(id, 0, 100)).rejects.toThrow(/no blob/);
      const { readBytePage } = await import("../../../../lib/blobs/read-bytes.ts");
      await expect(readBytePage(join(dir, `${id}.txt`), 0, 100)).rejects.toThrow(/symbolic link.*remove it \(rm /);
      expect((await store.list()).count).toBe(0);
    });

    it("refuses a FIFO without hanging, and a file owned by another user", async () => {
      mkdirSync(dir, { mode: 0o700 });
      const fifo = join(dir, `${"b".repeat(64)}.txt`);
      execFileSync("mkfifo", [fifo]);
      const { readBytePage } = await import("../../../../lib/blobs/read-bytes.ts");
      await expect(readBytePage(fifo, 0, 10)).rejects.toThrow(/not a regular file/);
      if (process.getuid?.() === 0) {
        const foreign = join(dir, `${"c".repeat(64)}.txt`);
        writeFileSync(foreign, "planted");
        chownSync(foreign, 65534, 65534);
        await expect(readBytePage(foreign, 0, 10)).rejects.toThrow(/owned by uid 65534, not by you/);
      }
    });

    it("a write never follows a link planted under the content's name: it replaces the link", async () => {
      mkdirSync(dir, { mode: 0o700 });
      const data = "the new output\n";
      const outside = join(root, "victim.txt");
      writeFileSync(outside, "x".repeat(Buffer.byteLength(data))); // same size: looks like a stored copy
      const old = new Date(Date.now() - 86_400_000);
      utimesSync(outside, old, old);
      const name = join(dir, `${sha(data)}.txt`);
      symlinkSync(outside, name);
      const written = await new BlobStore({ dir }).put(data);
      expect(written.created).toBe(true);
      expect(lstatSync(name).isFile()).toBe(true);
      expect(readFileSync(name, "utf8")).toBe(data);
      expect(statSync(name).mode & 0o777).toBe(0o600);
      // The link's target was neither written nor touched.
      expect(readFileSync(outside, "utf8")).toBe("x".repeat(Buffer.byteLength(data)));
      expect(Math.abs(statSync(outside).mtimeMs - old.getTime())).toBeLessThan(1_000);
    });
  });

  describe("the cache directory", () => {
    const refused = async (path: string, message: RegExp) => {
      await expect(checkBlobDir(path, { create: true })).rejects.toThrow(message);
      try {
        await checkBlobDir(path, { create: true });
      } catch (error) {
        expect(isErrorCategory(error, "invalid_input")).toBe(true);
      }
    };

    it("creates a missing directory 0700 (and accepts a private existing one)", async () => {
      const deep = join(root, "a", "b", "blobs");
      expect(await checkBlobDir(deep, { create: false })).toBe("missing");
      expect(await checkBlobDir(deep, { create: true })).toBe("ready");
      expect(statSync(deep).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, "a")).mode & 0o777).toBe(0o700);
      mkdirSync(join(root, "shared-read"), { mode: 0o755 });
      chmodSync(join(root, "shared-read"), 0o755);
      expect(await checkBlobDir(join(root, "shared-read"), { create: true })).toBe("ready");
    });

    it("refuses a world- or group-writable directory and names the chmod that fixes it", async () => {
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      await refused(dir, /writable by every user \(mode 777\).*Run: chmod 700 /);
      chmodSync(dir, 0o770);
      await refused(dir, /writable by its group \(mode 770\).*chmod 700/);
      chmodSync(dir, 0o700);
      expect(await checkBlobDir(dir, { create: true })).toBe("ready");
    });

    it("refuses a symbolic link as the directory", async () => {
      const real = join(root, "real");
      mkdirSync(real, { mode: 0o700 });
      symlinkSync(real, dir);
      await refused(dir, /is a symbolic link \(to .*real\).*Remove the link/);
    });

    it.skipIf(process.getuid?.() !== 0)("refuses a directory owned by another user", async () => {
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65534, 65534);
      await refused(dir, /owned by uid 65534, not by you \(uid 0\)/);
      await expect(new BlobStore({ dir }).put("output")).rejects.toThrow(/owned by uid 65534/);
      expect(readdirSync(dir)).toEqual([]);
    });

    it("fails fast for a directory on a pseudo file system (/proc), where mkdir would loop forever", async () => {
      const started = performance.now();
      await refused("/proc/self/pi-governor/blobs", /on the proc pseudo file system.*set blobs\.dir/);
      await expect(new BlobStore({ dir: "/proc/self/pi-governor/blobs" }).put("output")).rejects.toThrow(/proc pseudo file system/);
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it("refuses a path under a regular file with the reason", async () => {
      writeFileSync(join(root, "file"), "");
      await refused(join(root, "file", "blobs"), /ENOTDIR/);
    });
  });

  describe("degrading", () => {
    it("an unsafe cache gives one warning with the fix; tool calls still succeed, cut without a pointer", async () => {
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const gov = await blobsGovernor({ blobs: { dir } }, { text: "y".repeat(40_000) });
      const ui = recordingUi();
      gov.attachSession("s", ui);
      for (let i = 0; i < 3; i++) {
        const out = await callAndShape(gov, "emit");
        expect(out.isError).toBe(false);
        expect(out.details).toMatchObject({ truncated: true, blobError: "GOV_BLOB_DIR" });
      }
      const warnings = ui.notes.filter((n) => n.level === "warning");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/writable by every user.*chmod 700/);
      // Nothing was written into the unsafe directory.
      expect(readdirSync(dir)).toEqual([]);
    });

    it("blob_read, the list command and retention report the problem instead of reading through it", async () => {
      const real = join(root, "elsewhere");
      mkdirSync(real, { mode: 0o700 });
      const inside = await new BlobStore({ dir: real }).put("stored elsewhere");
      symlinkSync(real, dir);
      const store = new BlobStore({ dir });
      await expect(store.readLinePage(inside.id, 1, 10, 100)).rejects.toThrow(/symbolic link/);
      await expect(store.sweep()).rejects.toThrow(/symbolic link/);
      await expect(store.purge()).rejects.toThrow(/symbolic link/);
      expect(readFileSync(inside.path, "utf8")).toBe("stored elsewhere");
      const gov = await blobsGovernor({ blobs: { dir } }, { text: "" });
      const obs = await gov.pipeline.callTool("blob_read", { blobId: inside.id });
      expect(obs.status).toBe("ERROR");
      expect(textOf(obs.content)).toMatch(/symbolic link.*Remove the link/);
      const ui = recordingUi();
      await gov.pipeline.commands.get("governor blobs")!.command.handler("", { ui, cwd: "/", sessionId: "s" });
      expect(ui.notes).toEqual([{ message: expect.stringMatching(/^Blob cache .*blobs: .*symbolic link.*Remove the link/s), level: "warning" }]);
    });
  });
});

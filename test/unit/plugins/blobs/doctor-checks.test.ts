import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { blobsDefaults } from "../../../../plugins/blobs/config.ts";

const work = mkdtempSync(join(tmpdir(), "gov-blobs-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The blobs plugin's own checks for `dir`, as the doctor runs them (real folders). */
const check = (dir: string, agentDir = work) =>
  blobs().doctorChecks!({ ...blobsDefaults, dir, enabled: true }, { cwd: work, agentDir, env: {}, startTimeoutMs: 1_000 });

describe("the blobs plugin's doctor checks", () => {
  it("a folder not made yet is fine (made with mode 700 at first use); a private one is ok", async () => {
    expect(await check(join(work, "not-yet"))).toEqual([
      { name: "blob cache", status: "ok", detail: `${join(work, "not-yet")} (not created yet; made with mode 700 at first use)` },
    ]);
    const mine = join(work, "mine");
    mkdirSync(mine, { mode: 0o700 });
    expect((await check(mine))[0]).toMatchObject({ status: "ok", detail: `${mine} (private to you)` });
  });

  it("a group-writable directory and a symbolic link fail with the fix", async () => {
    const open = join(work, "open-cache");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    const link = join(work, "link-cache");
    symlinkSync(open, link);
    const [unsafe] = await check(open);
    expect(unsafe).toMatchObject({ name: "blob cache", status: "fail", detail: `${open} cannot be used` });
    expect(unsafe!.fix).toMatch(/chmod 700/);
    expect((await check(link))[0]!.fix).toMatch(/symbolic link/);
  });

  it("the default folder follows the agent directory, as a session's does", async () => {
    const agentDir = join(work, "profile", "agent");
    const [line] = await check(blobsDefaults.dir, agentDir);
    expect(line!.detail).toContain(join(work, "profile", "agent", "cache", "pi-governor", "blobs"));
  });
});

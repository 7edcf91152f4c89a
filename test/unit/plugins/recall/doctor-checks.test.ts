import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recall, recallDefaults } from "../../../../plugins/recall/index.ts";

const work = mkdtempSync(join(tmpdir(), "gov-recall-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The recall plugin's own checks for `dbPath`, as the doctor runs them (real folders). */
const check = (dbPath: string, agentDir = work) =>
  recall().doctorChecks!({ ...recallDefaults, dbPath, enabled: true }, { cwd: join(work, "project"), agentDir, env: {}, startTimeoutMs: 1_000 });

describe("the recall plugin's doctor checks", () => {
  it("the default index follows the agent directory and is not created by the check", async () => {
    const agentDir = join(work, "profile", "agent");
    const [line] = await check("", agentDir);
    const path = join(agentDir, "cache", "pi-governor", "recall", "index.db");
    expect(line).toMatchObject({ name: "recall index", status: "ok" });
    expect(line!.detail).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(not created yet; .*blob_read reads them$`));
  });

  it("a relative dbPath is read from the project folder; an index that exists in a private folder is ok", async () => {
    const folder = join(work, "project", "idx");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(join(folder, "index.db"), "", { mode: 0o600 });
    expect((await check("idx/index.db"))[0]).toMatchObject({ status: "ok", detail: expect.stringContaining(`${join(folder, "index.db")} (private to you)`) });
  });

  it("an index file that is a link, or a folder others can write, fails with the fix", async () => {
    const open = join(work, "open");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    const [unsafe] = await check(join(open, "index.db"));
    expect(unsafe).toMatchObject({ name: "recall index", status: "fail" });
    expect(unsafe!.fix).toMatch(/recall index folder .* chmod 700/);
    const linked = join(work, "linked");
    mkdirSync(linked, { mode: 0o700 });
    symlinkSync("/etc/hostname", join(linked, "index.db"));
    expect((await check(join(linked, "index.db")))[0]!.status).toBe("fail");
  });
});

/**
 * Recall's own files follow the blob cache's rules on every open: a world-writable or linked index
 * folder, a linked index file or companion, and a FIFO planted in place of the index are refused by
 * the writer (one warning, nothing indexed) and by `pi-governor search` (exit 2, promptly: the
 * read-only open must not hang on a FIFO).
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "pi-governor/host";
import { systemClock } from "pi-governor";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { RecallIndex } from "../../../../plugins/recall/index-store.ts";
import { RecallWriter } from "../../../../plugins/recall/writer.ts";
import { repoRoot } from "../../../helpers/pi-cli.ts";

const fts = probeSqlite().fts5;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "pigov-recall-files-"));
  dirs.push(dir);
  return dir;
}

/** A writer on `dbPath`, its notes, and whether one output reached the index. */
async function writeOne(dir: string, dbPath: string) {
  const notes: string[] = [];
  const writer = new RecallWriter(
    { path: dbPath, chunk: {}, batchSize: 20, flushIntervalMs: 50, maxQueued: 100, maxIndexBytes: 1 << 20, maxOutputs: 1000, closeWaitMs: 0 },
    { clock: systemClock, logger: createLogger("t", () => {}), notify: (m) => void notes.push(m), store: new BlobStore({ dir: join(dir, "blobs") }) },
  );
  const text = "planted folder test output pelican";
  writer.add({
    sessionId: "s",
    project: "/p",
    tool: "bash",
    args: "bash()",
    turn: 1,
    atMs: Date.now(),
    toolCallId: "c1",
    blobId: createHash("sha256").update(text).digest("hex"),
    isError: false,
    text,
  });
  await writer.flush();
  const indexed = writer.indexed;
  await writer.close();
  return { notes, indexed };
}

/** Runs the real CLI (`bin/pi-governor.mjs search`), killed after 20 s: a hang shows as code null. */
function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin", "pi-governor.mjs"), "search", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: temp(), PI_CODING_AGENT_DIR: temp() },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe.skipIf(!fts)("recall's index folder and files", () => {
  it("a world-writable index folder is refused by the writer: one warning naming the folder and the fix, nothing indexed", async () => {
    const dir = temp();
    const folder = join(dir, "recall");
    mkdirSync(folder, { mode: 0o700 });
    chmodSync(folder, 0o777);
    const { notes, indexed } = await writeOne(dir, join(folder, "index.db"));
    expect(indexed).toBe(0);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`recall index folder ${folder} is writable by every user`);
    expect(notes[0]).toContain("chmod 700");
    expect(existsSync(join(folder, "index.db"))).toBe(false);
  });

  it("an index folder that is a symbolic link is refused, and nothing is created behind it", async () => {
    const dir = temp();
    const real = join(dir, "elsewhere");
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(dir, "recall"));
    const { notes, indexed } = await writeOne(dir, join(dir, "recall", "index.db"));
    expect(indexed).toBe(0);
    expect(notes[0]).toMatch(/recall index folder .* is a symbolic link/);
    expect(existsSync(join(real, "index.db"))).toBe(false);
  });

  it("a -wal companion planted as a link is refused before SQLite follows it", async () => {
    const dir = temp();
    const folder = join(dir, "recall");
    mkdirSync(folder, { mode: 0o700 });
    RecallIndex.open(join(folder, "index.db")).close();
    symlinkSync(join(dir, "target"), join(folder, "index.db-wal"));
    const { notes, indexed } = await writeOne(dir, join(folder, "index.db"));
    expect(indexed).toBe(0);
    expect(notes[0]).toMatch(/index\.db-wal.*symbolic link/);
    expect(existsSync(join(dir, "target"))).toBe(false);
  });

  it("`pi-governor search` on a FIFO planted as the index exits 3 (cannot read, as stats) at once instead of hanging", async () => {
    const folder = join(temp(), "recall");
    mkdirSync(folder, { mode: 0o700 });
    const fifo = join(folder, "index.db");
    execFileSync("mkfifo", [fifo]);
    const run = await cli(["anything", "--db", fifo]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("it is not a regular file");
  }, 30_000);

  it("`pi-governor search` refuses a world-writable index folder and a linked index file", async () => {
    const dir = temp();
    const folder = join(dir, "recall");
    mkdirSync(folder, { mode: 0o700 });
    RecallIndex.open(join(folder, "index.db")).close();
    symlinkSync(join(folder, "index.db"), join(folder, "link.db"));
    const linked = await cli(["anything", "--db", join(folder, "link.db")]);
    expect(linked.code).toBe(3);
    expect(linked.stderr).toContain("it is a symbolic link");
    chmodSync(folder, 0o777);
    const open = await cli(["anything", "--db", join(folder, "index.db")]);
    expect(open.code).toBe(3);
    expect(open.stderr).toContain("is writable by every user");
  }, 60_000);
});

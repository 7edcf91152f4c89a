/**
 * Rows queued when the session ends while another process holds the index lock: close() retries for
 * a bounded time, then keeps them in a private spill file that the next writer replays. Spill files
 * are read like blobs (no link, no FIFO) and every row is checked.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "pi-governor/host";
import { systemClock } from "pi-governor";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { RecallIndex } from "../../../../plugins/recall/index-store.ts";
import { RecallWriter, type PendingOutput } from "../../../../plugins/recall/writer.ts";

const HOLDER = resolve(import.meta.dirname, "../../../fixtures/sqlite/lock-holder.mjs");
const fts = probeSqlite().fts5;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "pigov-recall-spill-"));
  dirs.push(dir);
  const dbPath = join(dir, "recall", "index.db");
  const store = new BlobStore({ dir: join(dir, "blobs") });
  const notes: string[] = [];
  const writer = (closeWaitMs: number) =>
    new RecallWriter(
      { path: dbPath, chunk: {}, batchSize: 20, flushIntervalMs: 50, maxQueued: 100, maxIndexBytes: 1 << 20, maxOutputs: 1000, closeWaitMs },
      { clock: systemClock, logger: createLogger("t", () => {}), notify: (m) => void notes.push(m), store },
    );
  return { dir, dbPath, store, notes, writer, folder: join(dir, "recall") };
}

function output(text: string, n: number): PendingOutput {
  return {
    sessionId: "s",
    project: "/p",
    tool: "bash",
    args: "bash()",
    turn: 1,
    atMs: Date.now(),
    toolCallId: `c${n}`,
    blobId: createHash("sha256").update(text).digest("hex"),
    isError: false,
    text,
  };
}

/** Holds the write lock on `db` from another process for `ms`; resolves once locked, with the exit. */
async function holdLock(db: string, ms: number): Promise<{ exited: Promise<void> }> {
  const child = spawn(process.execPath, [HOLDER, db, String(ms), "exclusive"], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((res) => lines.on("line", (l) => l === "locked" && res()));
  return { exited: new Promise<void>((res) => child.once("exit", () => res())) };
}

const spills = (folder: string) => readdirSync(folder).filter((n) => n.includes(".spill-"));

describe.skipIf(!fts)("recall rows at shutdown", () => {
  it("an index locked past closeWaitMs: all 10 rows go to a private spill file and the next writer indexes them", async () => {
    const t = setup();
    RecallIndex.open(t.dbPath).close();
    const lock = await holdLock(t.dbPath, 2_500);
    const first = t.writer(300);
    for (let i = 0; i < 10; i++) first.add(output(`shutdown row ${i} narwhalSpill`, i));
    const started = Date.now();
    expect(await first.close()).toBe(10);
    expect(Date.now() - started).toBeLessThan(2_400); // bounded: did not wait for the lock
    const files = spills(t.folder);
    expect(files).toHaveLength(1);
    expect(statSync(join(t.folder, files[0]!)).mode & 0o777).toBe(0o600);
    expect(t.notes).toEqual([]);
    await lock.exited;

    const next = t.writer(1_000);
    next.start();
    await next.flush();
    const index = (await next.index())!;
    expect(index.search("narwhalSpill", { limit: 20 }).hits).toHaveLength(10);
    expect(spills(t.folder)).toEqual([]); // replayed once, then gone
    await next.close();
  }, 30_000);

  it("a lock released within closeWaitMs loses nothing and leaves no spill file", async () => {
    const t = setup();
    RecallIndex.open(t.dbPath).close();
    const lock = await holdLock(t.dbPath, 400);
    const w = t.writer(5_000);
    for (let i = 0; i < 3; i++) w.add(output(`brief lock row ${i} ocelot`, i));
    expect(await w.close()).toBe(0);
    await lock.exited;
    expect(spills(t.folder)).toEqual([]);
    const index = RecallIndex.open(t.dbPath, { readonly: true });
    expect(index.search("ocelot", { limit: 10 }).hits).toHaveLength(3);
    index.close();
  }, 30_000);

  it("hostile spill files: a link, a FIFO and forged rows are never followed, hung on, or indexed", async () => {
    const t = setup();
    RecallIndex.open(t.dbPath).close();
    const real = output("real spilled row heron", 1);
    await t.store.put(real.text!);
    const { text: _text, ...row } = real;
    const forged = [JSON.stringify({ ...row, blobId: "../../etc/passwd" }), JSON.stringify({ ...row, extra: 1 }), "not json", JSON.stringify(row)];
    writeFileSync(join(t.folder, "index.db.spill-1-1-aa.jsonl"), forged.join("\n"), { mode: 0o600 });
    const secret = join(t.dir, "secret.jsonl");
    writeFileSync(secret, JSON.stringify({ ...row, toolCallId: "from-link" }));
    symlinkSync(secret, join(t.folder, "index.db.spill-2-2-bb.jsonl"));
    execFileSync("mkfifo", [join(t.folder, "index.db.spill-3-3-cc.jsonl")]);

    const w = t.writer(500);
    w.start();
    await w.flush();
    const hits = (await w.index())!.search("heron", { limit: 10 }).hits;
    expect(hits.map((h) => h.toolCallId)).toEqual(["c1"]); // only the valid row of the regular file
    expect(spills(t.folder).sort()).toEqual(["index.db.spill-2-2-bb.jsonl", "index.db.spill-3-3-cc.jsonl"]); // left for the user
    await w.close();
  }, 30_000);
});

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "pi-governor/host";
import { systemClock } from "pi-governor";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { RecallWriter, type PendingOutput } from "../../../../plugins/recall/writer.ts";

const HOLDER = resolve(import.meta.dirname, "../../../fixtures/sqlite/lock-holder.mjs");
const fts = probeSqlite().fts5;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(path?: (dir: string) => string) {
  const dir = mkdtempSync(join(tmpdir(), "pigov-recall-w-"));
  dirs.push(dir);
  const notes: Array<{ message: string; level: string }> = [];
  const warnings: string[] = [];
  const store = new BlobStore({ dir: join(dir, "blobs") });
  const dbPath = path ? path(dir) : join(dir, "recall", "index.db");
  const writer = new RecallWriter(
    { path: dbPath, chunk: {}, batchSize: 20, flushIntervalMs: 50, maxQueued: 100, maxIndexBytes: 1 << 20, maxOutputs: 1000 },
    {
      clock: systemClock,
      logger: createLogger("t", (r) => void (r.level === "warn" && warnings.push(r.message))),
      notify: (message, level) => void notes.push({ message, level }),
      store,
    },
  );
  return { dir, dbPath, store, writer, notes, warnings };
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

describe.skipIf(!fts)("recall writer degrades", () => {
  it("a corrupt index file: one warning, blobs still stored, later outputs silently skipped", async () => {
    const t = setup((dir) => join(dir, "index.db"));
    writeFileSync(t.dbPath, "this is not a database ".repeat(200), { mode: 0o600 });
    t.writer.add(output("first output zebra", 1));
    await t.writer.flush();
    t.writer.add(output("second output yak", 2));
    t.writer.add(output("third output gnu", 3));
    await t.writer.flush();
    expect(t.notes).toHaveLength(1);
    expect(t.notes[0]!.level).toBe("warning");
    expect(t.notes[0]!.message).toContain(t.dbPath);
    // It says the file is corrupt, where, and the command that sets it aside.
    expect(t.notes[0]!.message).toMatch(/the file is corrupt or not a SQLite database \(.*not a database\)\. Set it aside: mv /);
    expect(t.notes[0]!.message).toContain(`mv ${JSON.stringify(t.dbPath)} ${JSON.stringify(`${t.dbPath}.corrupt`)}`);
    expect(t.notes[0]!.message).toMatch(/a new, empty index is created at the next start/);
    expect(t.writer.broken).toBeDefined();
    // The way back still works: every blob was written.
    for (const text of ["first output zebra", "second output yak", "third output gnu"]) {
      const id = createHash("sha256").update(text).digest("hex");
      expect((await t.store.readBytes(id, 0, 100)).toString()).toBe(text);
    }
    await t.writer.close();
  });

  it("a directory where the file should be: one warning naming it", async () => {
    const t = setup((dir) => dir);
    t.writer.add(output("x", 1));
    await t.writer.flush();
    expect(t.notes).toHaveLength(1);
    await t.writer.close();
  });

  it("an index locked by another process keeps the outputs and writes them once the lock is gone", async () => {
    const t = setup((dir) => join(dir, "index.db"));
    const child = spawn(process.execPath, [HOLDER, t.dbPath, "700", "exclusive"], { stdio: ["ignore", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout! });
    const state = new Promise<void>((res) => lines.on("line", (l) => l === "locked" && res()));
    const exited = new Promise<void>((res) => child.once("exit", () => res()));
    await state;
    t.writer.add(output("locked output walrus", 1));
    await t.writer.flush();
    expect(t.writer.pending).toBe(1); // kept, not dropped
    expect(t.notes).toHaveLength(0);
    await exited;
    await t.writer.flush();
    expect(t.writer.pending).toBe(0);
    expect((await t.writer.index())!.search("walrus").hits).toHaveLength(1);
    expect(t.notes).toHaveLength(0);
    await t.writer.close();
  });

  it("a blob cache that cannot be written: the output is not indexed (no row without content), one warning", async () => {
    const t = setup();
    writeFileSync(join(t.dir, "blobs"), "a file, not a directory");
    t.writer.add(output("lost output", 1));
    t.writer.add(output("lost output two", 2));
    await t.writer.flush();
    expect(t.notes.filter((n) => n.message.includes("blob cache"))).toHaveLength(1);
    expect((await t.writer.index())!.count()).toBe(0);
    await t.writer.close();
  });

  it("a full queue never drops an output whose blob is not written yet", async () => {
    const t = setup();
    const small = new RecallWriter(
      { ...t.writer.options, maxQueued: 2, batchSize: 100 },
      { clock: systemClock, logger: createLogger("t", () => {}), notify: () => {}, store: t.store },
    );
    const texts = Array.from({ length: 6 }, (_, i) => `queued output ${i} cormorant`);
    texts.forEach((text, i) => small.add(output(text, i)));
    await small.flush();
    for (const text of texts) expect((await t.store.readBytes(createHash("sha256").update(text).digest("hex"), 0, 100)).toString()).toBe(text);
    expect((await small.index())!.search("cormorant", { limit: 10 }).hits).toHaveLength(6);
    await small.close();
  });
});

import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { rulesFor } from "../../../../plugins/prune/config.ts";
import { decide } from "../../../../plugins/prune/decide.ts";
import { pruneDefaults } from "../../../../plugins/prune/index.ts";
import { recallHarness, type RecallHarness } from "./recall-harness.ts";

const fts = probeSqlite().fts5;
const ROOT = join(import.meta.dirname, "..", "..", "..", "..");

describe.skipIf(!fts)("recall plugin in the pipeline", () => {
  let h: RecallHarness;
  afterEach(async () => h?.dispose());

  it("names a blob for a result that was not cut, without changing its content, and the blob is byte-exact", async () => {
    h = await recallHarness();
    const text = "small output\nwith ünïcode ✓ and a trailing newline\n";
    const out = await h.result("bash", "c1", text, { command: "echo" });
    expect(out.content).toEqual([{ type: "text", text }]);
    const id = createHash("sha256").update(text, "utf8").digest("hex");
    expect(out.details).toEqual({ blobId: id });
    expect(out.details?.truncated).toBeUndefined(); // the blobs plugin's own check stays untouched
    await h.call("context_search", { query: "ünïcode" }); // flushes the queue
    expect(readFileSync(join(h.blobDir, `${id}.txt`), "utf8")).toBe(text);
    expect(statSync(join(h.blobDir, `${id}.txt`)).mode & 0o777).toBe(0o600);
    expect(statSync(h.dbPath).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(h.dbPath)).mode & 0o777).toBe(0o700);
  });

  it("the prune placeholder of such a result names its blob_read way back", async () => {
    h = await recallHarness();
    const text = "x".repeat(5_000);
    const out = await h.result("bash", "c2", text, { command: "cat big" });
    const message = {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "bash",
      content: out.content,
      details: out.details,
      isError: false,
      timestamp: 1,
    } as never;
    const rules = rulesFor(pruneDefaults, "normal");
    const d = decide(message, rules, new Map());
    expect(d.summary).toContain(`blob_read({"blobId":"${String(out.details!.blobId).slice(0, 12)}"})`);
  });

  it("indexes a cut result from its blob: text only in the stored part is found, with the call that opens it", async () => {
    h = await recallHarness({ thresholdBytes: 2_048 });
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i + 1}: routine output`);
    lines[250] = "line 251: the needle is quetzalcoatlRiver";
    const text = lines.join("\n");
    const out = await h.result("read", "c3", text, { path: "big.log" });
    expect(out.details?.truncated).toBe(true);
    expect(JSON.stringify(out.content)).not.toContain("quetzalcoatl");
    const answer = await h.call("context_search", { query: "quetzalcoatlRiver" });
    expect(answer).toContain('read(path="big.log")');
    expect(answer).toContain("«quetzalcoatlRiver»");
    const call = answer.match(/blob_read\((\{.*?\})\)/)![1]!;
    const args = JSON.parse(call) as { blobId: string; offset: number; limit: number };
    expect(args.blobId).toBe(String(out.details!.blobId).slice(0, 12));
    const page = await h.call("blob_read", args);
    expect(page).toContain("line 251: the needle is quetzalcoatlRiver");
    // part of the identifier finds it too
    expect(await h.call("context_search", { query: "River needle" })).toContain("big.log");
  });

  it("answers within its byte budget, scopes to the session, and rejects a bad scope clearly", async () => {
    h = await recallHarness();
    for (let i = 0; i < 30; i++)
      await h.result("bash", `c${i}`, `${readFileSync(join(ROOT, "core/hooks.ts"), "utf8")}\nrun ${i}`, { command: `cat hooks ${i}` });
    const answer = await h.call("context_search", { query: "TransformHook", limit: 30 });
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2_048);
    expect(answer).toMatch(/more not shown/);
    expect(await h.call("context_search", { query: "nothingmatchesthis" })).toMatch(/^No earlier output matches/);
    expect(await h.call("context_search", { query: "x", scope: "galaxy" })).toMatch(/scope must be one of "session", "project", got "galaxy"/);
  });

  it("never indexes its own answers or blob_read pages", async () => {
    h = await recallHarness();
    await h.result("bash", "c1", "unique marker okapi");
    await h.call("context_search", { query: "okapi" });
    await h.call("context_search", { query: "okapi" });
    const answer = await h.call("context_search", { query: "okapi" });
    expect(answer).toMatch(/^1 output\(s\) match/);
  });
});

describe.skipIf(!fts)("recall and the blobs plugin's cache", () => {
  it("does not claim an excerpt as the output when the blobs plugin could not store it", async () => {
    const h = await recallHarness();
    try {
      const value = {
        toolName: "bash",
        toolCallId: "t1",
        input: {},
        content: [{ type: "text" as const, text: "excerpt only" }],
        details: { truncated: true, blobError: "EACCES", originalBytes: 99_999, excerptBytes: 12 },
        isError: false,
      };
      const out = await h.gov.pipeline.hooks.toolResult.run(value, { tool: undefined, sessionId: "session-1" });
      expect(out.details?.blobId).toBeUndefined();
    } finally {
      await h.dispose();
    }
  });
});

describe.skipIf(!fts)("recall turns and compaction", () => {
  it("turn numbers keep counting when compaction drops old user messages; the pointer is added once", async () => {
    const h = await recallHarness();
    try {
      const ctx = (messages: unknown[]) => h.gov.pipeline.hooks.context.run(messages as never, { sessionId: "session-1" });
      await ctx([
        { role: "user", content: "a", timestamp: 1 },
        { role: "user", content: "b", timestamp: 2 },
      ]);
      const summary = { role: "compactionSummary", summary: "Earlier: a and b.", tokensBefore: 10, timestamp: 3 };
      const sent = await ctx([summary, { role: "user", content: "c", timestamp: 4 }]);
      expect((sent[0] as unknown as { summary: string }).summary).toBe(
        "Earlier: a and b.\n\nTool outputs from before this summary are still searchable: context_search finds them and names the blob_read call that reads them back exactly.",
      );
      expect(summary.summary).toBe("Earlier: a and b."); // the input copy is untouched
      const again = await ctx([sent[0], { role: "user", content: "c", timestamp: 4 }]);
      expect(again[0]).toBe(sent[0]); // already carries the pointer: unchanged
      await h.result("bash", "t1", "osprey nest count", { command: "count" });
      expect(await h.call("context_search", { query: "osprey" })).toMatch(/ · turn 3 · /);
    } finally {
      await h.dispose();
    }
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../../cli/main.ts";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { recallHarness, type RecallHarness } from "./recall-harness.ts";

const fts = probeSqlite().fts5;

function recordingUi(answer: boolean) {
  const notes: string[] = [];
  const confirms: string[] = [];
  return {
    notes,
    confirms,
    ui: { hasUI: true, notify: (m: string) => void notes.push(m), setStatus: () => {}, confirm: async (t: string) => (confirms.push(t), answer) },
  };
}

describe.skipIf(!fts)("recall for the user", () => {
  let h: RecallHarness;
  afterEach(async () => h?.dispose());

  it("`pi-governor search` finds outputs in text and JSON, filters by session and tool, and explains bad input", async () => {
    h = await recallHarness({ sessionId: "sess-a" });
    await h.result("bash", "c1", "npm ERR! peer dependency conflict with zebrafishRenderer", { command: "npm install" });
    await h.result("read", "c2", "export class ZebrafishRenderer {}", { path: "src/render.ts" });
    await h.call("context_search", { query: "x" }); // flush
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) };
    expect(await main(["search", "zebrafishRenderer", "--db", h.dbPath, "--blobs", h.blobDir, "--json"], io)).toBe(0);
    const json = JSON.parse(out.join("")) as { hits: Array<{ tool: string; sessionId: string; blobId: string }> };
    expect(json.hits.map((x) => x.tool).sort()).toEqual(["bash", "read"]);
    out.length = 0;
    expect(await main(["search", "Renderer", "--tool", "read", "--session", "sess-a", "--db", h.dbPath, "--blobs", h.blobDir], io)).toBe(0);
    expect(out.join("")).toContain('read(path="src/render.ts")');
    expect(out.join("")).not.toContain("npm install");
    expect(await main(["search", "Renderer", "--session", "other", "--db", h.dbPath, "--blobs", h.blobDir], io)).toBe(1);
    expect(await main(["search", "x", "--limit", "0", "--db", h.dbPath], io)).toBe(2);
    expect(err.join("")).toMatch(/--limit must be a whole number from 1 to 100/);
    expect(await main(["search", "x", "--db", `${h.dir}/none.db`], io)).toBe(1);
    expect(err.join("")).toMatch(/no recall index at .*none\.db/);
  });

  it("/<root> search shows hits; /<root> purge-index asks first and empties the index; /<root> recall breaks down per tool", async () => {
    h = await recallHarness();
    await h.result("bash", "c1", "kingfisherTelemetry flushed", { command: "run" });
    const yes = recordingUi(true);
    const ctx = { ui: yes.ui, cwd: h.dir, sessionId: "session-1" };
    await h.gov.pipeline.runCommand("governor search", "kingfisher", ctx);
    expect(yes.notes.at(-1)).toContain('bash(command="run")');
    await h.gov.pipeline.runCommand("governor recall", "", ctx);
    expect(yes.notes.at(-1)).toMatch(/Indexed in this session: 1 output/);
    expect(yes.notes.at(-1)).toMatch(/bash: 1 output\(s\)/);
    const no = recordingUi(false);
    await h.gov.pipeline.runCommand("governor purge-index", "", { ...ctx, ui: no.ui });
    expect(no.confirms).toHaveLength(1);
    expect(no.notes.at(-1)).toBe("Search index kept.");
    await h.gov.pipeline.runCommand("governor purge-index", "", ctx);
    expect(yes.notes.at(-1)).toBe("Purged 1 output(s) from the search index.");
    await h.gov.pipeline.runCommand("governor search", "kingfisher", ctx);
    expect(yes.notes.at(-1)).toMatch(/^No earlier output matches/);
  });

  it("a row whose blob is gone is removed by the search that meets it (no row outlives its content)", async () => {
    h = await recallHarness();
    const out = await h.result("bash", "c1", "pelicanManifest v2", { command: "cat" });
    await h.call("context_search", { query: "pelican" });
    const { rmSync } = await import("node:fs");
    rmSync(`${h.blobDir}/${out.details!.blobId}.txt`);
    expect(await h.call("context_search", { query: "pelicanManifest" })).toMatch(/^No earlier output matches/);
    const yes = recordingUi(true);
    await h.gov.pipeline.runCommand("governor recall", "", { ui: yes.ui, cwd: h.dir, sessionId: "session-1" });
    expect(yes.notes.at(-1)).toMatch(/Indexed in this session: 0 output/);
  });
});

describe.skipIf(!fts)("recall retention", () => {
  it("the session's first model call removes rows whose blob is gone", async () => {
    const h = await recallHarness();
    try {
      const kept = await h.result("bash", "c1", "heronKept output", { command: "a" });
      const gone = await h.result("bash", "c2", "heronGone output", { command: "b" });
      await h.call("context_search", { query: "heron" }); // flush
      const { rmSync } = await import("node:fs");
      rmSync(`${h.blobDir}/${gone.details!.blobId}.txt`);
      const { RecallIndex } = await import("../../../../plugins/recall/index-store.ts");
      const count = () => {
        const index = RecallIndex.open(h.dbPath, { readonly: true });
        try {
          return index.blobIds();
        } finally {
          index.close();
        }
      };
      expect(count().sort()).toEqual([kept.details!.blobId, gone.details!.blobId].sort());
      await h.gov.pipeline.hooks.context.run([{ role: "user", content: "hi", timestamp: 1 } as never], { sessionId: "session-1" });
      for (let i = 0; i < 50 && count().length > 1; i++) await new Promise((r) => setTimeout(r, 20));
      expect(count()).toEqual([kept.details!.blobId]);
    } finally {
      await h.dispose();
    }
  });
});

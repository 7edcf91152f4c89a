/**
 * Which FTS5 tokenizer lets a part of an identifier find it: the trigram tokenizer (any substring of
 * three or more characters) or unicode61 plus a column of split identifiers (the recall plugin's
 * choice). Corpus: this repository's own source files, each indexed as one tool output. Queries: a
 * word of a compound identifier (`Store` of `BlobStore`, `cache` of `checkBlobDir`... ), expected hit:
 * a file containing that identifier. Reported: hit@5 and MRR, index size, build time, query p50.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { splitIdentifier } from "../../plugins/recall/identifiers.ts";
import { RecallIndex, type TokenizerVariant } from "../../plugins/recall/index-store.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** Every .ts file of the repo's source folders (no node_modules). */
export function repoSources(root = ROOT): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const p = join(dir, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else if (name.endsWith(".ts")) out.push({ path: p.slice(root.length + 1), text: readFileSync(p, "utf8") });
    }
  };
  for (const d of ["core", "lib", "plugins", "presets", "cli"]) walk(join(root, d));
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Deterministic sample of (part, identifier) queries from compound identifiers of the corpus. */
export function partQueries(files: Array<{ text: string }>, max = 300): Array<{ part: string; identifier: string }> {
  const all = new Map<string, string>();
  for (const f of files) {
    for (const id of f.text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
      const parts = splitIdentifier(id);
      if (parts.length < 2) continue;
      const part = parts.slice(1).find((p) => p.length >= 4 && /[A-Za-z]/.test(p));
      if (part && !all.has(id)) all.set(id, part);
    }
  }
  const ids = [...all.keys()].sort();
  const step = Math.max(1, Math.floor(ids.length / max));
  return ids
    .filter((_, i) => i % step === 0)
    .slice(0, max)
    .map((id) => ({ identifier: id, part: all.get(id)! }));
}

interface Measured {
  hitAt5: number;
  mrr: number;
  dbBytes: number;
  buildMs: number;
  queryNs: number;
}

function measure(variant: TokenizerVariant, files: Array<{ path: string; text: string }>, queries: Array<{ part: string; identifier: string }>): Measured {
  const db = openDatabase(":memory:");
  const index = new RecallIndex(db, { variant });
  const start = performance.now();
  index.addAll(
    files.map((f, i) => ({
      sessionId: "s",
      project: "p",
      tool: "read",
      args: f.path,
      turn: 1,
      atMs: i,
      toolCallId: f.path,
      blobId: f.path,
      isError: false,
      text: f.text,
    })),
  );
  const buildMs = performance.now() - start;
  const pageCount = Number(db.pragma("page_count"));
  const pageSize = Number(db.pragma("page_size"));
  let hits = 0;
  let rr = 0;
  const times: number[] = [];
  for (const q of queries) {
    // The part alone (what someone remembers), plus the identifier's first word to narrow it, as a
    // user would type "blob store" for BlobStore.
    const words = splitIdentifier(q.identifier);
    const query = `${words[0]} ${q.part}`;
    const t = process.hrtime.bigint();
    const { hits: found } = index.search(query, { limit: 5 });
    times.push(Number(process.hrtime.bigint() - t));
    const pos = found.findIndex((h) => files.find((f) => f.path === h.toolCallId)!.text.includes(q.identifier));
    if (pos >= 0) {
      hits++;
      rr += 1 / (pos + 1);
    }
  }
  times.sort((a, b) => a - b);
  db.close();
  return { hitAt5: hits / queries.length, mrr: rr / queries.length, dbBytes: pageCount * pageSize, buildMs, queryNs: times[Math.floor(times.length / 2)]! };
}

const suite: BenchSuite = async (report) => {
  const probe = probeSqlite();
  if (!probe.fts5 || !probe.trigram) {
    report({ name: "FTS5 or trigram unavailable", value: "skipped" });
    return;
  }
  const files = repoSources();
  const queries = partQueries(files);
  const words = measure("words", files, queries);
  const trigram = measure("trigram", files, queries);
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  report({ name: `corpus`, value: `${files.length} files, ${kb(files.reduce((s, f) => s + f.text.length, 0))}, ${queries.length} part queries` });
  for (const [name, m] of [
    ["words (unicode61 + split column)", words],
    ["trigram", trigram],
  ] as const) {
    report({ name: `${name}: hit@5 / MRR`, value: `${(m.hitAt5 * 100).toFixed(1)}% / ${m.mrr.toFixed(3)}` });
    report({ name: `${name}: index size, build`, value: `${kb(m.dbBytes)}, ${m.buildMs.toFixed(0)} ms` });
    report({ name: `${name}: query p50`, value: formatNs(m.queryNs) });
  }
  report({
    name: "index size words / trigram",
    value: `${(words.dbBytes / trigram.dbBytes).toFixed(2)}`,
    ratio: words.dbBytes / trigram.dbBytes,
    note: "words index smaller (target < 1)",
    pass: words.dbBytes < trigram.dbBytes,
  });
  report({
    name: "hit@5 words - trigram",
    value: `${((words.hitAt5 - trigram.hitAt5) * 100).toFixed(1)} points`,
    note: "part-of-identifier recall (target >= -5 points)",
    pass: words.hitAt5 - trigram.hitAt5 >= -0.05,
  });
};
export default suite;

/**
 * False-positive scan: `npx tsx test/bench/redact-scan.ts <dir|file>...` runs the redactor over the
 * source and log files under the given paths (node_modules included when named; .git skipped) and
 * prints, per rule, how many matches it made and up to 5 samples with their file, so every match on
 * real source code can be judged (a known test fixture or a real secret, or a false positive to fix).
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { Redactor } from "../../lib/redact/index.ts";

const EXTENSIONS = new Set([
  ".ts",
  ".mts",
  ".cts",
  ".js",
  ".mjs",
  ".cjs",
  ".tsx",
  ".jsx",
  ".json",
  ".md",
  ".log",
  ".txt",
  ".yml",
  ".yaml",
  ".sh",
  ".py",
  ".html",
  ".css",
  ".map",
  ".d.ts",
  ".jsonl",
]);
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const redactor = new Redactor();
const counts: Record<string, number> = {};
const samples: Record<string, string[]> = {};
let files = 0;
let bytes = 0;

function scanFile(path: string): void {
  const text = readFileSync(path, "utf8");
  files++;
  bytes += text.length;
  const { text: out, counts: found } = redactor.redactWithReport(text);
  for (const [rule, n] of Object.entries(found)) {
    counts[rule] = (counts[rule] ?? 0) + n;
    const list = (samples[rule] ??= []);
    if (list.length < 60) {
      const at = out.indexOf(`[redacted:${rule}]`);
      list.push(`${path}: ${JSON.stringify(out.slice(Math.max(0, at - 60), at + 40 + rule.length))}`);
    }
  }
}

function walk(path: string): void {
  let s;
  try {
    s = lstatSync(path);
  } catch {
    return;
  }
  if (s.isSymbolicLink()) return;
  if (s.isDirectory()) {
    if (path.endsWith("/.git")) return;
    let entries: string[] = [];
    try {
      entries = readdirSync(path);
    } catch {
      return;
    }
    for (const e of entries) walk(join(path, e));
    return;
  }
  if (!s.isFile() || s.size > MAX_FILE_BYTES) return;
  if (!EXTENSIONS.has(extname(path)) && !/\.log(\.\d+)?$/.test(path)) return;
  try {
    scanFile(path);
  } catch {
    // unreadable: skipped
  }
}

const started = performance.now();
for (const p of process.argv.slice(2)) walk(p);
const ms = performance.now() - started;
console.log(`${files} files, ${(bytes / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s`);
for (const [rule, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) {
  console.log(`${rule}: ${n}`);
  for (const s of samples[rule] ?? []) console.log(`    ${s}`);
}

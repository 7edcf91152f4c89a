/**
 * `npm run bench [filter]`: runs every `test/bench/*.bench.ts` (or those whose name contains
 * `filter`) and prints one table. Exit code 0 even when a target is missed: targets are reported,
 * not asserted.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchRow, BenchSuite } from "./harness.ts";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? "";
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts") && f.includes(filter))
  .sort();
const rows: BenchRow[] = [];
for (const file of files) {
  const suite = file.replace(/\.bench\.ts$/, "");
  process.stderr.write(`bench: ${suite} ...\n`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: BenchSuite };
  try {
    await mod.default((row) => {
      rows.push({ suite, ...row });
      const ratio = row.ratio === undefined ? "" : `  ratio ${row.ratio.toFixed(2)}`;
      process.stderr.write(`  ${row.name}: ${row.value}${ratio}${row.note ? `  (${row.note})` : ""}${row.pass === undefined ? "" : row.pass ? "  PASS" : "  MISS"}\n`);
    });
  } catch (error) {
    rows.push({ suite, name: "suite failed", value: (error as Error).stack ?? String(error), pass: false });
  }
}
const width = (k: (r: BenchRow) => string) => Math.max(...rows.map((r) => k(r).length), 4);
const cols: Array<[string, (r: BenchRow) => string]> = [
  ["suite", (r) => r.suite],
  ["measure", (r) => r.name],
  ["value", (r) => r.value],
  ["ratio", (r) => (r.ratio === undefined ? "" : r.ratio.toFixed(2))],
  ["target", (r) => (r.pass === undefined ? "" : r.pass ? "met" : "MISSED")],
  ["note", (r) => r.note ?? ""],
];
const widths = cols.map(([h, k]) => Math.max(h.length, width(k)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
console.log(line(cols.map(([h]) => h)));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const r of rows) console.log(line(cols.map(([, k]) => k(r))));
process.exit(0);

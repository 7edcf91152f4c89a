/**
 * `npm run bench [filter]`: runs every `test/bench/*.bench.ts` (or those whose name contains
 * `filter`) and prints one table. Exit code 0 even when a target is missed: targets are reported,
 * not asserted.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { useHermeticHomeUntilExit } from "../helpers/hermetic-home.ts";
import type { BenchRow, BenchSuite } from "./harness.ts";

// Suites build presets and stores: whatever they write by default goes to a throwaway home.
useHermeticHomeUntilExit();

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
      process.stderr.write(
        `  ${row.name}: ${row.value}${ratio}${row.note ? `  (${row.note})` : ""}${row.pass === undefined ? "" : row.pass ? "  PASS" : "  MISS"}\n`,
      );
    });
  } catch (error) {
    rows.push({ suite, name: "suite failed", value: (error as Error).stack ?? String(error), pass: false });
  }
}
// The table fits 120 columns: one line per measure (suite, name, ratio, target), then the value and
// the note on indented lines, wrapped at word boundaries.
const COLUMNS = 120;
const suiteWidth = Math.max(5, ...rows.map((r) => r.suite.length));
const wrap = (text: string, indent: string): string[] => {
  const out: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.trim() && line.length + 1 + word.length > COLUMNS) {
      out.push(line);
      line = indent;
    }
    line += line.trim() ? ` ${word}` : word;
  }
  if (line.trim()) out.push(line);
  return out;
};
const indent = " ".repeat(suiteWidth + 4);
console.log(`${"suite".padEnd(suiteWidth)}  measure${" ".repeat(Math.max(1, COLUMNS - suiteWidth - 9 - 15))}ratio  target`);
console.log("-".repeat(COLUMNS));
for (const r of rows) {
  const ratio = r.ratio === undefined ? "" : r.ratio.toFixed(2);
  const target = r.pass === undefined ? "" : r.pass ? "met" : "MISSED";
  const right = `${ratio.padStart(7)}  ${target.padEnd(6)}`;
  const head = `${r.suite.padEnd(suiteWidth)}  ${r.name}`;
  if (head.length + right.length + 1 <= COLUMNS) console.log(`${head.padEnd(COLUMNS - right.length)}${right}`.trimEnd());
  else {
    for (const l of wrap(head, "")) console.log(l);
    console.log(`${" ".repeat(COLUMNS - right.length)}${right}`.trimEnd());
  }
  for (const l of wrap(`${r.value}${r.note ? ` (${r.note})` : ""}`, indent)) console.log(l);
}
process.exit(0);

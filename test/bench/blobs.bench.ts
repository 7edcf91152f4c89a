/**
 * Time and peak memory to govern a 1 MB and a 100 MB tool output with the blobs plugin (store the
 * whole output, build the excerpt), against a plain sha256 + writeFile of the same bytes measured in
 * the same run (and the same with the store's temp file + fsync + rename, to separate durability from
 * governance). Each measurement runs in a fresh child process (blobs-child.ts) for a clean peak.
 *
 * Then grep over a 20 MB blob: the safe grep (grepBlob: a literal on this thread, a regex in a
 * worker under a deadline, worker start included) against the direct in-thread regex the store used
 * before (scanLines + RegExp.exec per line), both scanning the whole blob.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BlobStore } from "../../lib/blobs/index.ts";
import { scanLines } from "../../lib/blobs/read-lines.ts";
import { grepBlob } from "../../lib/blobs/read-pages.ts";
import type { BenchSuite } from "./harness.ts";

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

interface ChildResult {
  mode: string;
  mb: number;
  ms: number;
  peakMb: number;
  runs: number;
}

async function measure(mode: "baseline" | "baseline-fsync" | "governed", mb: number, dir: string): Promise<ChildResult> {
  const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", join(here, "blobs-child.ts"), mode, String(mb), dir], {
    cwd: join(here, "..", ".."),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as ChildResult;
}

const suite: BenchSuite = async (report) => {
  for (const mb of [1, 100]) {
    const dir = mkdtempSync(join(tmpdir(), "pigov-bench-blobs-"));
    try {
      const base = await measure("baseline", mb, dir);
      const durable = await measure("baseline-fsync", mb, dir);
      const gov = await measure("governed", mb, dir);
      report({ name: `${mb} MB: sha256 + writeFile (baseline)`, value: `${base.ms.toFixed(1)} ms, peak +${base.peakMb.toFixed(1)} MB` });
      report({
        name: `${mb} MB: sha256 + temp/fsync/rename`,
        value: `${durable.ms.toFixed(1)} ms, peak +${durable.peakMb.toFixed(1)} MB`,
        ratio: durable.ms / base.ms,
        note: "x baseline time (what atomic durability costs)",
      });
      report({ name: `${mb} MB: govern (store whole + excerpt)`, value: `${gov.ms.toFixed(1)} ms`, ratio: gov.ms / base.ms, note: "x baseline time" });
      report({
        name: `${mb} MB: govern peak memory`,
        value: `+${gov.peakMb.toFixed(1)} MB above the output string`,
        ratio: base.peakMb > 0 ? gov.peakMb / base.peakMb : undefined,
        note: `x baseline peak (target <= 1: no whole-output copy)`,
        ...(base.peakMb > 0 ? { pass: gov.peakMb <= base.peakMb } : {}),
      } as never);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await grepRows(report);
};

async function grepRows(report: Parameters<BenchSuite>[0]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pigov-bench-grep-"));
  try {
    const lines = Array.from(
      { length: 200_000 },
      (_, i) => `${String(i).padStart(6, "0")} INFO request handled in ${i % 97} ms path=/api/v1/items/${i} user=u${i % 1000}`,
    );
    lines[150_000] = "150000 ERROR 503 upstream unavailable";
    const { path, bytes } = await new BlobStore({ dir }).put(lines.join("\n"));
    const mb = (bytes / 1e6).toFixed(0);
    for (const [label, source] of [
      ["regex", "error\\s+5\\d\\d"],
      ["literal", "upstream unavailable"],
    ] as const) {
      // Interleaved runs, best of 7 each: the machine is shared, and the best run is the one least
      // disturbed by other work.
      let direct = Infinity;
      let safe = Infinity;
      for (let run = 0; run < 7; run++) {
        let t = performance.now();
        const re = new RegExp(source, "i");
        for await (const l of scanLines(path)) re.exec(l.bytes.toString("utf8"));
        direct = Math.min(direct, performance.now() - t);
        t = performance.now();
        await grepBlob(path, source, { maxMatches: 1_000 });
        safe = Math.min(safe, performance.now() - t);
      }
      report({ name: `grep ${mb} MB, ${label} pattern: direct in-thread RegExp (old, baseline)`, value: `${direct.toFixed(1)} ms` });
      report({
        name: `grep ${mb} MB, ${label} pattern: safe grep (${label === "regex" ? "worker + deadline" : "in-thread literal"})`,
        value: `${safe.toFixed(1)} ms`,
        ratio: safe / direct,
        note: "x baseline time (target <= 2)",
        pass: safe / direct <= 2,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
export default suite;

/**
 * Time and peak memory to govern a 1 MB and a 100 MB tool output with the blobs plugin (store the
 * whole output, build the excerpt), against a plain sha256 + writeFile of the same bytes measured in
 * the same run (and the same with the store's temp file + fsync + rename, to separate durability from
 * governance). Each measurement runs in a fresh child process (blobs-child.ts) for a clean peak.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
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
      report({ name: `${mb} MB: sha256 + temp/fsync/rename`, value: `${durable.ms.toFixed(1)} ms, peak +${durable.peakMb.toFixed(1)} MB`, ratio: durable.ms / base.ms, note: "x baseline time (what atomic durability costs)" });
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
};
export default suite;

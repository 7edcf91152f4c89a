/**
 * One measurement of the blobs bench, run in its own process so its peak memory is its own:
 * `node --expose-gc --import tsx test/bench/blobs-child.ts <baseline|baseline-fsync|governed> <megabytes> <dir>`.
 * Prints one JSON line: median milliseconds over the runs and the peak RSS above the level reached
 * once the tool output string exists (the output is in memory before any governance runs).
 */
import { createHash } from "node:crypto";
import { open, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createGovernor } from "../../host/index.ts";
import { definePreset, textContent, type ToolResultValue } from "../../core/index.ts";
import { blobs } from "../../plugins/blobs/index.ts";
import { oneToolPlugin } from "../../testing/index.ts";

const [mode = "governed", mb = "1", dir = "/tmp/pigov-bench-blobs"] = process.argv.slice(2);
const bytes = Number(mb) * 1024 * 1024;
const RUNS = Number(mb) >= 50 ? 3 : 15;

// A tool output of about `bytes` ASCII bytes: JSON-ish lines, unique per run so nothing dedupes.
// Built by `repeat` (a rope) and flattened once: the only whole copy is the output itself, so the
// generation's own peak stays below what a measured run may add.
function output(run: number, size = bytes): string {
  const line = `{"run":${String(run).padStart(6, "0")},"path":"src/module/file.ts","line":1234,"content":"export function example(arg: string): number { return arg.length; }"}\n`;
  const text = line.repeat(Math.max(1, Math.round(size / line.length)));
  Buffer.byteLength(text); // flattens the rope now, before the measurement starts
  return text;
}

const tool = oneToolPlugin({ name: "dump", execute: async () => ({ content: textContent("") }) }, { name: "bench:tool", configKey: "benchTool" });
const gov = await createGovernor({
  preset: definePreset({ name: "bench", description: "", plugins: () => [blobs(), tool()] }),
  cwd: dir,
  agentDir: dir,
  env: {},
  layers: [{ kind: "global", source: "bench", data: { blobs: { dir: join(dir, "blobs") } } }],
});
const info = gov.pipeline.tools.get("dump")!.info;

async function once(text: string, run: number): Promise<number> {
  const start = performance.now();
  if (mode === "baseline") {
    const id = createHash("sha256").update(text).digest("hex");
    await writeFile(join(dir, `${id}-${run}.txt`), text, { mode: 0o600 });
  } else if (mode === "baseline-fsync") {
    // The same durability the store pays for: temp file, fsync, rename.
    const id = createHash("sha256").update(text).digest("hex");
    const temp = join(dir, `.tmp-${run}`);
    const handle = await open(temp, "wx", 0o600);
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await rename(temp, join(dir, `${id}-${run}.txt`));
  } else {
    const value: ToolResultValue = { toolName: "dump", toolCallId: String(run), input: {}, content: textContent(text), details: {}, isError: false };
    const out = await gov.pipeline.hooks.toolResult.run(value, { tool: info, sessionId: "bench" });
    if (out.details?.truncated !== true || typeof out.details.blobId !== "string") throw new Error("the output was not stored");
  }
  return performance.now() - start;
}

const times: number[] = [];
let peakKb = 0;
const gc = (globalThis as { gc?: () => void }).gc;
// Warm-up: compile the code paths once so the first measured run's peak is the work, not the JIT.
await once(output(-1, 256 * 1024), -1);
for (let run = 0; run < RUNS; run++) {
  let text: string | undefined = output(run);
  gc?.();
  const rssBefore = process.memoryUsage.rss();
  const maxBeforeKb = process.resourceUsage().maxRSS;
  // RSS sampled every millisecond catches peaks in the asynchronous parts; maxRSS (which only grows)
  // catches synchronous ones whenever they exceed every earlier peak.
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 1);
  times.push(await once(text, run));
  clearInterval(sampler);
  sampled = Math.max(sampled, process.memoryUsage.rss());
  const maxAfterKb = process.resourceUsage().maxRSS;
  const fromMax = maxAfterKb > maxBeforeKb ? maxAfterKb - rssBefore / 1024 : 0;
  peakKb = Math.max(peakKb, (sampled - rssBefore) / 1024, fromMax);
  text = undefined;
  gc?.();
}
times.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ mode, mb: Number(mb), ms: times[Math.floor(times.length / 2)], peakMb: peakKb / 1024, runs: RUNS })}\n`);

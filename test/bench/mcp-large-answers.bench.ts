/**
 * Large MCP answers (1, 5, 20, 50 MB of text from a real SDK stdio server): time per call and the
 * client's peak memory, ManagedMcpServer against a bare SDK client (ReadBuffer limit raised so it
 * can receive them at all) measured in the same run. Each measurement runs in a fresh process
 * (mcp-large-answers-child.ts).
 */
import { execFile } from "node:child_process";
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
}

async function measure(mode: "managed" | "sdk", mb: number): Promise<ChildResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(here, "mcp-large-answers-child.ts"), mode, String(mb)], {
    cwd: join(here, "..", ".."),
    maxBuffer: 1 << 20,
    timeout: 600_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as ChildResult;
}

const suite: BenchSuite = async (report) => {
  for (const mb of [1, 5, 20, 50]) {
    const sdk = await measure("sdk", mb);
    const managed = await measure("managed", mb);
    report({ name: `${mb} MB: bare SDK client (baseline)`, value: `${sdk.ms.toFixed(0)} ms, peak +${sdk.peakMb.toFixed(0)} MB` });
    report({
      name: `${mb} MB: ManagedMcpServer`,
      value: `${managed.ms.toFixed(0)} ms, peak +${managed.peakMb.toFixed(0)} MB`,
      ratio: managed.ms / sdk.ms,
      note: "x baseline time (target <= 1)",
      pass: managed.ms <= sdk.ms * 1.1,
    });
  }
};
export default suite;

/**
 * One measurement of the large-answer bench, in its own process so its peak memory is its own:
 * `node --import tsx test/bench/mcp-large-answers-child.ts <managed|sdk> <megabytes>`.
 * `managed`: ManagedMcpServer (its linear line buffer); `sdk`: a bare SDK Client over
 * StdioClientTransport with its ReadBuffer limit raised to fit (the baseline). Both against the
 * big-answer fixture server. Prints one JSON line: median ms of the calls and the client's peak RSS
 * above its level after connecting, in MB.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ManagedMcpServer } from "../../lib/mcp/index.ts";
import { BIG_ANSWER_SERVER } from "../fixtures/big-answer-mcp/command.ts";

const [mode = "managed", mbArg = "1"] = process.argv.slice(2);
const mb = Number(mbArg);
const bytes = mb * 1024 * 1024;
// The baseline is quadratic in the answer size (about 90 s per 50 MB call): one run is enough there.
const RUNS = mb >= 20 ? (mode === "sdk" ? 1 : 3) : 7;

let call: (n: number) => Promise<number>;
let close: () => Promise<void>;
if (mode === "managed") {
  // No heartbeat: the baseline has none either, and a ping must not cost the comparison.
  const server = new ManagedMcpServer({
    name: "big",
    command: process.execPath,
    args: [BIG_ANSWER_SERVER],
    heartbeatIntervalMs: 0,
    maxAnswerBytes: 256 * 1024 * 1024,
  });
  await server.start();
  call = async (n) => ((await server.callTool("big", { bytes: n })).content as Array<{ text: string }>)[0]!.text.length;
  close = () => server.close();
} else {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIG_ANSWER_SERVER], maxBufferSize: 512 * 1024 * 1024 }));
  call = async (n) =>
    ((await client.callTool({ name: "big", arguments: { bytes: n } }, undefined, { timeout: 600_000 })).content as Array<{ text: string }>)[0]!.text.length;
  close = () => client.close();
}
await call(1024);
const before = process.memoryUsage().rss;
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const got = await call(bytes);
  times.push(performance.now() - start);
  if (got !== bytes) throw new Error(`got ${got} bytes, asked for ${bytes}`);
}
const peakMb = (process.resourceUsage().maxRSS * 1024 - before) / 1024 / 1024;
await close();
times.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ mode, mb, ms: times[Math.floor(times.length / 2)], peakMb: Math.max(0, peakMb), runs: RUNS })}\n`);

/**
 * ManagedMcpServer against real server-everything processes:
 * - round-trip cost of an echo call through the manager vs a bare SDK Client, same server program,
 *   same run, rounds interleaved (target: within 5%);
 * - crash-detection latency (SIGKILL -> reconnecting), time to recover (SIGKILL -> running again);
 * - hang-detection latency (SIGSTOP during a call -> reconnecting; target < 3 s).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ManagedMcpServer, type McpServerState } from "../../core/mcp/index.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const serverArgs = [EVERYTHING, "stdio"];
const CALLS = 400;
const ROUNDS = 7;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeCalls(call: () => Promise<unknown>, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - start) / n;
}

function until(server: ManagedMcpServer, state: McpServerState, limitMs = 10_000): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${state} not reached in ${limitMs} ms`)), limitMs);
    const off = server.subscribe((e) => {
      if (e.type === "state" && e.to === state) {
        clearTimeout(timer);
        off();
        resolve(performance.now() - t0);
      }
    });
  });
}

const suite: BenchSuite = async (report) => {
  // Timers in the manager are unref'd; keep the bench process alive while children restart.
  const keepAlive = setInterval(() => {}, 1_000);
  const bare = new Client({ name: "bench-bare", version: "1" });
  const managed = new ManagedMcpServer({ name: "everything", command: process.execPath, args: serverArgs });
  try {
    await bare.connect(new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: "pipe" }));
    await managed.start();
    // Same client state on both sides: the manager lists tools at start (the SDK then caches output validators).
    await bare.listTools();
    const args = { message: "bench" };
    const bareCall = () => bare.callTool({ name: "echo", arguments: args });
    const session = new AbortController().signal;
    const managedCall = () => managed.callTool("echo", args, { signal: session });
    await timeCalls(bareCall, 200);
    await timeCalls(managedCall, 200);
    const bareNs: number[] = [];
    const managedNs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first so neither always runs on a warmer machine.
      if (r % 2 === 0) {
        bareNs.push(await timeCalls(bareCall, CALLS));
        managedNs.push(await timeCalls(managedCall, CALLS));
      } else {
        managedNs.push(await timeCalls(managedCall, CALLS));
        bareNs.push(await timeCalls(bareCall, CALLS));
      }
      ratios.push(managedNs.at(-1)! / bareNs.at(-1)!);
      if (process.env.BENCH_DEBUG) process.stderr.write(`round ${r}: bare ${formatNs(bareNs.at(-1)!)} managed ${formatNs(managedNs.at(-1)!)}\n`);
    }
    const b = median(bareNs);
    const m = median(managedNs);
    report({ name: "echo round trip, bare SDK Client (baseline)", value: `${formatNs(b)}/call` });
    // Median of per-round ratios: each pair ran back to back, so machine drift cancels out.
    const ratio = median(ratios);
    report({ name: "echo round trip, ManagedMcpServer", value: `${formatNs(m)}/call`, ratio, note: "managed / bare (target <= 1.05)", pass: ratio <= 1.05 });

    const crash: number[] = [];
    const recover: number[] = [];
    for (let i = 0; i < 5; i++) {
      const lost = until(managed, "reconnecting");
      const back = until(managed, "running");
      process.kill(managed.status().pid!, "SIGKILL");
      crash.push(await lost);
      recover.push(await back);
    }
    report({ name: "crash detection (SIGKILL -> reconnecting)", value: `${median(crash).toFixed(1)} ms median of 5`, note: "target < 250 ms (exit noticed at once)", pass: median(crash) < 250 });
    report({ name: "time to recover (SIGKILL -> running)", value: `${median(recover).toFixed(0)} ms median of 5`, note: "first backoff 100 ms + spawn + initialize + tools/list (info)" });

    const hang: number[] = [];
    for (let i = 0; i < 3; i++) {
      const pid = managed.status().pid!;
      const call = managed.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      const lost = until(managed, "reconnecting");
      process.kill(pid, "SIGSTOP");
      hang.push(await lost);
      await until(managed, "running");
      void call;
    }
    const worst = Math.max(...hang);
    report({ name: "hang detection (SIGSTOP mid-call -> reconnecting)", value: `${median(hang).toFixed(0)} ms median, ${worst.toFixed(0)} ms worst of 3`, note: "target < 3000 ms (ping every 500 ms, 2 s timeout)", pass: worst < 3_000 });
  } finally {
    await Promise.all([managed.close(), bare.close().catch(() => {})]);
    clearInterval(keepAlive);
  }
};

export default suite;

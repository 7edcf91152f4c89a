/**
 * ManagedMcpServer against real server-everything processes:
 * - round-trip cost of an echo call through the manager vs a bare SDK Client, same server program,
 *   same run, all variants round-robin call by call (21 rounds of 30 cycles), reported as the median
 *   per-round ratio so load swings on a shared machine cancel out (target: within 5%); a second bare
 *   client shows the noise floor;
 * - crash-detection latency (SIGKILL -> reconnecting), time to recover (SIGKILL -> running again);
 * - hang-detection latency (SIGSTOP during a call -> reconnecting; target < 3 s).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ManagedMcpServer, type McpServerState } from "../../lib/mcp/index.ts";
import { fakeConnector } from "../helpers/fake-mcp-connection.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const serverArgs = [EVERYTHING, "stdio"];
const CALLS = 30;
const ROUNDS = 21;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
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

async function bareClient(): Promise<Client> {
  const client = new Client({ name: "bench-bare", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: "pipe" }));
  // Same client state as the manager, which lists tools at start (the SDK then caches output validators).
  await client.listTools();
  return client;
}

/**
 * Runs the variants round-robin, call by call, in ROUNDS rounds of CALLS cycles; returns per variant the
 * median per-call time and, per round, the time relative to `baseline`. Round-robin at call granularity
 * puts every variant under the same load on a shared machine.
 */
async function roundRobin(variants: Record<string, () => Promise<unknown>>, baseline: string): Promise<Record<string, { ns: number; ratio: number }>> {
  const names = Object.keys(variants);
  const perRound: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const ratios: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const sums: Record<string, bigint> = Object.fromEntries(names.map((n) => [n, 0n]));
    for (let i = 0; i < CALLS; i++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + i + r) % names.length]!;
        const t0 = process.hrtime.bigint();
        await variants[name]!();
        sums[name]! += process.hrtime.bigint() - t0;
      }
    }
    for (const n of names) {
      perRound[n]!.push(Number(sums[n]!) / CALLS);
      ratios[n]!.push(Number(sums[n]!) / Number(sums[baseline]!));
    }
  }
  return Object.fromEntries(names.map((n) => [n, { ns: median(perRound[n]!), ratio: median(ratios[n]!) }]));
}

const suite: BenchSuite = async (report) => {
  // Timers in the manager are unref'd; keep the bench process alive while children restart.
  const keepAlive = setInterval(() => {}, 1_000);
  const managed = new ManagedMcpServer({ name: "everything", command: process.execPath, args: serverArgs });
  const bare: Client[] = [];
  try {
    bare.push(await bareClient(), await bareClient());
    await managed.start();
    const args = { message: "bench" };
    const session = new AbortController().signal;
    const variants = {
      bare: () => bare[0]!.callTool({ name: "echo", arguments: args }),
      bareControl: () => bare[1]!.callTool({ name: "echo", arguments: args }),
      bareWithSignal: () => bare[0]!.callTool({ name: "echo", arguments: args }, undefined, { signal: new AbortController().signal }),
      managed: () => managed.callTool("echo", args),
      managedWithSignal: () => managed.callTool("echo", args, { signal: session }),
    };
    for (const f of Object.values(variants)) for (let i = 0; i < 100; i++) await f();
    const r = await roundRobin(variants, "bare");
    report({ name: "echo round trip, bare SDK Client (baseline)", value: `${formatNs(r.bare!.ns)}/call` });
    report({
      name: "echo round trip, second bare Client (noise control)",
      value: `${formatNs(r.bareControl!.ns)}/call`,
      ratio: r.bareControl!.ratio,
      note: "bare / bare: the noise floor of this machine (same program, other process)",
    });
    report({
      name: "echo round trip, ManagedMcpServer",
      value: `${formatNs(r.managed!.ns)}/call`,
      ratio: r.managed!.ratio,
      note: "managed / bare (target <= 1.05)",
      pass: r.managed!.ratio <= 1.05,
    });
    report({
      name: "echo round trip, ManagedMcpServer + long-lived caller signal",
      value: `${formatNs(r.managedWithSignal!.ns)}/call`,
      ratio: r.managedWithSignal!.ratio,
      note: "managed / bare (target <= 1.05); per-call child signals come from a pool (a fresh AbortSignal costs ~4 us in Node 20)",
      pass: r.managedWithSignal!.ratio <= 1.05,
    });
    // The manager's own cost, without IPC noise: the same calls against an in-process connection that answers at once.
    const connector = fakeConnector();
    const inProcess = new ManagedMcpServer({ name: "fake", command: "none", heartbeatIntervalMs: 500 }, { connector });
    await inProcess.start();
    const conn = connector.connections[0]!;
    conn.calls = { push: () => 0 } as never;
    const direct = await nsPerCall(() => conn.callTool("echo", args, { signal: new AbortController().signal }), 20_000);
    const through = await nsPerCall(() => inProcess.callTool("echo", args, { signal: session }), 20_000);
    await inProcess.close();
    const overhead = Math.max(0, through - direct);
    const estimated = (r.bare!.ns + overhead) / r.bare!.ns;
    report({
      name: "manager overhead per call (in-process; both sides pass a per-call signal to the connection)",
      value: `${formatNs(overhead)}/call`,
      ratio: estimated,
      note: `(bare round trip + overhead) / bare round trip: the manager's share without IPC noise (target <= 1.05)`,
      pass: estimated <= 1.05,
    });
    report({
      name: "echo round trip, bare SDK Client + per-call signal",
      value: `${formatNs(r.bareWithSignal!.ns)}/call`,
      ratio: r.bareWithSignal!.ratio,
      note: "bare with a signal / bare (info)",
    });

    const crash: number[] = [];
    const recover: number[] = [];
    for (let i = 0; i < 5; i++) {
      const lost = until(managed, "reconnecting");
      const back = until(managed, "running");
      process.kill(managed.status().pid!, "SIGKILL");
      crash.push(await lost);
      recover.push(await back);
    }
    report({
      name: "crash detection (SIGKILL -> reconnecting)",
      value: `${median(crash).toFixed(1)} ms median of 5`,
      note: "target < 250 ms (exit noticed at once)",
      pass: median(crash) < 250,
    });
    report({
      name: "time to recover (SIGKILL -> running)",
      value: `${median(recover).toFixed(0)} ms median of 5`,
      note: "first backoff 100 ms + spawn + initialize + tools/list (info)",
    });

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
    report({
      name: "hang detection (SIGSTOP mid-call -> reconnecting)",
      value: `${median(hang).toFixed(0)} ms median, ${worst.toFixed(0)} ms worst of 3`,
      note: "target < 3000 ms (ping every 500 ms, 2 s timeout)",
      pass: worst < 3_000,
    });
  } finally {
    await Promise.all([managed.close(), ...bare.map((c) => c.close().catch(() => {}))]);
    clearInterval(keepAlive);
  }
};

export default suite;

/**
 * The chaos soak: many calls through the full kota preset over the KotaDB stand-in and the mcp
 * preset over the real server-everything, with random faults of every strategy (latency, errors of
 * each category, isError, hangs, oversized output, SIGKILL and SIGSTOP of the server mid-call).
 * Shared by the suite (test/integration/chaos/chaos-soak.test.ts, ~1,000 calls) and `npm run soak`
 * (10,000 calls). It measures what the report needs: calls that resolved with an observation,
 * unhandled rejections, timers and children left after close, heap after vs before, and calls that
 * reached a non-idempotent tool's transport more than once.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";
import { createGovernor, observationDetails } from "../../../../host/index.ts";
import {
  definePlugin,
  definePreset,
  TOOL_STAGE,
  type Governor,
  type Preset,
  type ToolHandler,
  type ToolInfo,
  type ToolObservation,
  type UiBridge,
} from "../../../../core/index.ts";
import { liveChildCount } from "../../../../lib/mcp/index.ts";
import { CHAOS_EVENT, chaosControllerOf } from "../../../../plugins/chaos/index.ts";
import { CountingClock } from "../../../helpers/counting-clock.ts";
import { kotaPreset, mcpPreset } from "../../../../presets/index.ts";
import { createFixtureRepo } from "../../../fixtures/kota-repo.ts";
import { faultyServer, isAlive } from "../../../fixtures/faulty-mcp/command.ts";
import { standinKotaConfig } from "../../../helpers/kota-standin.ts";

/** Every strategy, with rates that keep a run fast: a kill restarts the server (about a second). */
export const SOAK_FAULTS = [
  { type: "kill", probability: 0.01, afterMinMs: 0, afterMaxMs: 1 },
  { type: "stop", probability: 0.01, afterMinMs: 0, afterMaxMs: 1, stopMs: 300 },
  { type: "hang", probability: 0.008 },
  { type: "error", probability: 0.03, category: "network" },
  { type: "error", probability: 0.02, category: "rate_limit", retryAfterMs: 20 },
  { type: "error", probability: 0.01, category: "connection_lost" },
  { type: "error", probability: 0.01, category: "auth" },
  { type: "error", probability: 0.01, category: "invalid_input" },
  { type: "error", probability: 0.01, category: "timeout" },
  { type: "isError", probability: 0.02 },
  { type: "oversize", probability: 0.02, bytes: 60_000 },
  { type: "latency", probability: 0.1, minMs: 1, maxMs: 25 },
];

/** Resilience settings sized for a soak: short timeouts and backoffs, a breaker that recovers fast. */
const SOAK_RESILIENCE = {
  timeout: { defaultMs: 1_500, perTool: { kota_index: 5_000 } },
  retry: { baseDelayMs: 5, maxDelayMs: 50 },
  breaker: { failureThreshold: 5, cooldownMs: 200 },
};

/** Per call id: attempts that reached the transport as the outer stages see it (chaos included), and real executions below chaos. */
interface NonIdempotentCounts {
  attempts: Map<string, number>;
  executions: Map<string, number>;
}

/** Counts non-idempotent tools' attempts just above chaos and executions just below it, and `chaos.injected` events. */
function transportCounter(counts: NonIdempotentCounts, onChaosEvent: () => void) {
  const counter =
    (map: Map<string, number>) =>
    (next: ToolHandler, tool: ToolInfo): ToolHandler => {
      if (tool.annotations.readOnlyHint || tool.annotations.idempotentHint) return next;
      return (call) => {
        map.set(call.toolCallId, (map.get(call.toolCallId) ?? 0) + 1);
        return next(call);
      };
    };
  return definePlugin({
    name: "soak:transport-counter",
    configKey: "soakTransportCounter",
    description: "counts transport executions of non-idempotent tools",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.event.tap({ name: "soak:transport-counter" }, (event) => {
        if (event.type === "custom" && event.name === CHAOS_EVENT) onChaosEvent();
      });
      pipeline.hooks.toolCall.tap({ name: "soak:transport-counter", stage: TOOL_STAGE.TRANSPORT - 10 }, counter(counts.attempts));
      pipeline.hooks.toolCall.tap({ name: "soak:transport-counter", stage: TOOL_STAGE.TRANSPORT + 10 }, counter(counts.executions));
    },
  });
}

function withCounter(preset: Preset, counts: NonIdempotentCounts, onChaosEvent: () => void): Preset {
  const counter = transportCounter(counts, onChaosEvent);
  return definePreset({ ...preset, plugins: () => [...preset.plugins(), counter()] });
}

/** One call of the mix: tool and arguments. */
type Call = [tool: string, args: Record<string, unknown>];

const KOTA_MIX: Call[] = [
  ["kota_search", { query: "add" }],
  ["kota_deps", { file_path: "src/utils/math.ts" }],
  ["kota_usages", { symbol: "add" }],
  ["kota_impact", { change_type: "refactor", description: "rename add", files_to_modify: ["src/utils/math.ts"] }],
  ["kota_task_context", { files: ["src/utils/math.ts"] }],
  ["kota_search", { query: "formatSum", output: "snippet", context_lines: 0 }],
  ["kota_index", {}],
];
const MCP_MIX: Call[] = [
  ["everything_echo", { message: "soak" }],
  ["everything_get-sum", { a: 2, b: 3 }],
  ["everything_get-tiny-image", {}],
];

/** What one soak run measured. */
export interface SoakReport {
  calls: number;
  /** Calls whose promise resolved with an observation (SUCCESS, ERROR or TIMEOUT_EXCEEDED). */
  resolved: number;
  byStatus: Record<string, number>;
  /** ERROR observations by error category (injected and real: a killed server's calls, an open breaker). */
  errorsByCategory: Record<string, number>;
  /** Calls whose observation carries details.chaos.injected. */
  marked: number;
  /** Faults injected, by type (both stacks). */
  injected: Record<string, number>;
  /** `chaos.injected` events observed. */
  events: number;
  unhandledRejections: number;
  /** Timers of the governors' clocks still pending after close. */
  liveTimers: number;
  /** process.getActiveResourcesInfo() after close minus before the run (ref'd handles of any kind). */
  extraActiveResources: string[];
  liveChildren: number;
  /** Child processes of this process after close, from ps. */
  osChildren: number;
  /** Server pids seen during the run that are still alive. */
  serverPidsAlive: number;
  /**
   * Calls of a non-idempotent tool that reached its transport more than once, counted both as the
   * outer stages see it (just above chaos: an injected fault counts as a transport failure) and as
   * real executions (just below chaos); and how many such calls ran.
   */
  repeatedNonIdempotent: number;
  nonIdempotentCalls: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  durationMs: number;
}

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

function heapMb(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / 1_048_576;
}

/** Pids of this process's children, from ps (ps itself left out). */
function childPids(): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter(([pid, comm]) => pid && comm !== "ps")
      .map(([pid]) => Number(pid));
  } catch {
    return []; // ps exits 1 when there is no child
  }
}

const silentYes: UiBridge = { hasUI: true, notify: () => {}, setStatus: () => {}, confirm: async () => true };

/** Runs `calls` calls (half per stack), `concurrency` at a time per stack, and measures. */
export async function runSoak(options: { calls: number; concurrency?: number; seed?: number; log?: (line: string) => void }): Promise<SoakReport> {
  const { calls, concurrency = 8, seed = 1, log = () => {} } = options;
  let unhandled = 0;
  const onUnhandled = (): void => void unhandled++;
  process.on("unhandledRejection", onUnhandled);
  const resourcesBefore = process.getActiveResourcesInfo();
  // The test runner's own children (esbuild's service) are not ours.
  const childrenBefore = new Set(childPids());
  const heapBefore = heapMb();
  const started = performance.now();
  const repo = createFixtureRepo();
  const work = mkdtempSync(join(tmpdir(), "chaos-soak-"));
  const faulty = faultyServer({ mode: "none", server: "everything" });
  const counts: NonIdempotentCounts = { attempts: new Map(), executions: new Map() };
  const clocks: CountingClock[] = [];
  const governors: Governor[] = [];
  const report: Omit<
    SoakReport,
    | "liveTimers"
    | "extraActiveResources"
    | "liveChildren"
    | "osChildren"
    | "serverPidsAlive"
    | "heapBeforeMb"
    | "heapAfterMb"
    | "durationMs"
    | "unhandledRejections"
  > = {
    calls: 0,
    resolved: 0,
    byStatus: {},
    errorsByCategory: {},
    marked: 0,
    injected: {},
    events: 0,
    repeatedNonIdempotent: 0,
    nonIdempotentCalls: 0,
  };
  try {
    const build = async (preset: Preset, data: Record<string, unknown>, stackSeed: number, cwd: string): Promise<Governor> => {
      const clock = new CountingClock();
      clocks.push(clock);
      const gov = await createGovernor({
        preset: withCounter(preset, counts, () => void report.events++),
        cwd,
        agentDir: join(work, `agent-${preset.name}`),
        clock,
        layers: [
          {
            kind: "global",
            source: "soak",
            data: {
              ...SOAK_RESILIENCE,
              ...data,
              blobs: { dir: join(work, `blobs-${preset.name}`) },
              chaos: { enabled: true, seed: stackSeed, faults: SOAK_FAULTS },
            },
          },
        ],
      });
      gov.attachSession(`soak-${preset.name}`, silentYes);
      governors.push(gov);
      const problems = gov.problems();
      if (problems.length) throw new Error(`soak config problems (${preset.name}): ${problems.join("; ")}`);
      return gov;
    };
    const kotaGov = await build(kotaPreset, { kota: standinKotaConfig() }, seed, repo.root);
    const mcpGov = await build(
      mcpPreset,
      {
        mcp: {
          servers: {
            everything: {
              command: faulty.command,
              args: faulty.args,
              env: faulty.env,
              // Declared, so echo can be marked non-idempotent: its transport must run at most once per call.
              tools: [
                { name: "echo", readOnly: false, idempotent: false, inputSchema: { type: "object", properties: { message: { type: "string" } } } },
                { name: "get-sum", readOnly: true, inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } },
                { name: "get-tiny-image", readOnly: true },
              ],
            },
          },
        },
      },
      seed + 1,
      work,
    );
    // Warm-up without faults: the servers start (the stand-in loads through tsx) and the repo is indexed.
    for (const gov of governors) chaosControllerOf(gov.pipeline)!.active = false;
    await kotaGov.pipeline.callTool("kota_index", {}, { toolCallId: "warm-index" });
    for (const [tool, args] of MCP_MIX) await mcpGov.pipeline.callTool(tool, args, { toolCallId: `warm-${tool}` });
    for (const gov of governors) chaosControllerOf(gov.pipeline)!.active = true;
    counts.attempts.clear();
    counts.executions.clear();
    let callNo = 0;
    const runStack = async (gov: Governor, mix: Call[], total: number): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < total) {
          const i = next++;
          const [tool, args] = i === 0 && mix === KOTA_MIX ? KOTA_MIX[KOTA_MIX.length - 1]! : mix[(i * 5 + 3) % mix.length]!;
          const id = `soak-${++callNo}`;
          report.calls++;
          let watchdog: NodeJS.Timeout | undefined;
          const obs = await Promise.race<ToolObservation | undefined>([
            gov.pipeline.callTool(tool, args, { toolCallId: id, sessionId: "soak" }).then(async (o) => {
              // The rest of pi's path for a result: the toolResult transforms (budgets, blobs, pins).
              await gov.pipeline.hooks.toolResult.run(
                { toolName: tool, toolCallId: id, input: args, content: o.content, details: observationDetails(o), isError: o.status !== "SUCCESS" },
                { tool: gov.pipeline.tools.get(tool)?.info, sessionId: "soak" },
              );
              return o;
            }),
            new Promise<undefined>((resolve) => (watchdog = setTimeout(() => resolve(undefined), 60_000))),
          ]).finally(() => clearTimeout(watchdog));
          if (!obs || !["SUCCESS", "ERROR", "TIMEOUT_EXCEEDED"].includes(obs.status)) continue;
          report.resolved++;
          report.byStatus[obs.status] = (report.byStatus[obs.status] ?? 0) + 1;
          if (obs.status === "ERROR") {
            const key = `${obs.error.category}`;
            const seen = (report.errorsByCategory[key] = (report.errorsByCategory[key] ?? 0) + 1);
            if (process.env.SOAK_DEBUG && seen <= 3) log(`${tool}: ${obs.message.slice(0, 400)}`);
            // An agent told "paused, do not call again for a moment" moves on; a tight loop would only
            // count fail-fast answers for the rest of the cool-down.
            if (obs.error.category === "circuit_open") await new Promise((r) => setTimeout(r, 25));
          }
          if ((obs.details.chaos as { injected?: boolean } | undefined)?.injected === true) report.marked++;
          if (report.resolved % 1000 === 0) log(`${report.resolved} calls resolved`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    await Promise.all([runStack(kotaGov, KOTA_MIX, Math.ceil(calls / 2)), runStack(mcpGov, MCP_MIX, Math.floor(calls / 2))]);
    for (const gov of governors) {
      for (const [type, n] of Object.entries(chaosControllerOf(gov.pipeline)?.injectedCounts() ?? {})) report.injected[type] = (report.injected[type] ?? 0) + n;
    }
  } finally {
    for (const gov of governors) await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "soak", cwd: repo.root, reason: "quit" });
  }
  const pids = faulty.pids();
  await new Promise((r) => setTimeout(r, 300));
  report.nonIdempotentCalls = counts.attempts.size;
  for (const id of counts.attempts.keys()) {
    if ((counts.attempts.get(id) ?? 0) > 1 || (counts.executions.get(id) ?? 0) > 1) report.repeatedNonIdempotent++;
  }
  const resourcesAfter = process.getActiveResourcesInfo();
  const extra = [...resourcesAfter];
  for (const r of resourcesBefore) {
    const at = extra.indexOf(r);
    if (at >= 0) extra.splice(at, 1);
  }
  faulty.cleanup();
  repo.remove();
  rmSync(work, { recursive: true, force: true });
  governors.length = 0;
  const durationMs = performance.now() - started;
  const heapAfter = heapMb();
  process.off("unhandledRejection", onUnhandled);
  return {
    ...report,
    unhandledRejections: unhandled,
    liveTimers: clocks.reduce((s, c) => s + c.live, 0),
    extraActiveResources: extra,
    liveChildren: liveChildCount(),
    osChildren: childPids().filter((pid) => !childrenBefore.has(pid)).length,
    serverPidsAlive: pids.filter(isAlive).length,
    heapBeforeMb: Math.round(heapBefore * 10) / 10,
    heapAfterMb: Math.round(heapAfter * 10) / 10,
    durationMs: Math.round(durationMs),
  };
}

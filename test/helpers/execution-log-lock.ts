/**
 * The lock scenario shared by lock.test.ts (in-process) and test/fixtures/sqlite/execution-log-lock-child.ts (another Node): a real
 * second process holds the execution log's write lock on the real file while governed calls go on.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { createGovernor } from "../../host/index.ts";
import { definePreset, systemClock, textContent, type Clock, type UiBridge } from "../../core/index.ts";
import { openDatabase, probeSqlite } from "../../lib/sqlite/index.ts";
import { executionLog } from "../../plugins/execution-log/index.ts";
import { oneToolPlugin } from "../../testing/index.ts";

const HOLDER = resolve(import.meta.dirname, "../fixtures/sqlite/lock-holder.mjs");
/** How long the other process holds the lock by default, in ms. */
export const HOLD_MS = 1_200;

let holder: ChildProcess | undefined;

const tools = oneToolPlugin({ name: "echo", execute: async () => ({ content: textContent("ok") }) });

/** The real clock, timing every timer callback (start and duration, ms): how long the writer held the event loop. */
function timedClock(): Clock & { callbacks: Array<{ at: number; ms: number }> } {
  const clock = {
    callbacks: [] as Array<{ at: number; ms: number }>,
    now: systemClock.now,
    clearTimeout: systemClock.clearTimeout,
    setTimeout: (fn: () => void, ms: number) =>
      systemClock.setTimeout(() => {
        const started = performance.now();
        try {
          fn();
        } finally {
          clock.callbacks.push({ at: started, ms: performance.now() - started });
        }
      }, ms),
  };
  return clock;
}

/** Starts the lock holder and resolves once it holds the lock; `released` resolves when it let go. */
async function holdLock(path: string, ms: number): Promise<{ lockedAt: number; released: Promise<number> }> {
  const child = spawn(process.execPath, [HOLDER, path, String(ms), "exclusive"], { stdio: ["ignore", "pipe", "pipe"] });
  holder = child;
  let stderr = "";
  child.stderr!.on("data", (d) => void (stderr += String(d)));
  const lines = createInterface({ input: child.stdout! });
  const locked = new Promise<void>((res, rej) => {
    lines.on("line", (line) => line === "locked" && res());
    child.once("exit", (code) => rej(new Error(`lock holder exited ${code} before locking: ${stderr}`)));
  });
  const released = new Promise<number>((res, rej) =>
    child.once("exit", (code) => (code === 0 ? res(performance.now()) : rej(new Error(`lock holder exited ${code}: ${stderr}`)))),
  );
  await locked;
  return { lockedAt: performance.now(), released };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function countRows(path: string): number {
  try {
    const db = openDatabase(path, { readonly: true });
    try {
      return Number(db.prepare<{ n: number }>("SELECT count(*) AS n FROM tool_execution_log").get()!.n);
    } finally {
      db.close();
    }
  } catch {
    return -1; // still locked (rollback-journal mode) or not created yet
  }
}

/** What one run measured. Times in ms. */
export interface LockScenarioResult {
  driver: string;
  rows: number;
  /** Longest writer timer callback that started while the other process held the lock. */
  maxWhileLockedMs: number;
  /** Writer callbacks (write attempts) while locked. */
  busyAttempts: number;
  /** Duration of each of those attempts, rounded to 0.1 ms. */
  whileLocked: number[];
  /** Longest writer callback overall, including the one-time driver load, file creation and migration. */
  maxCallbackMs: number;
  /** Longest event-loop delay of the whole process (monitorEventLoopDelay), including GC and noise. */
  loopMaxMs: number;
  /** UI notification levels, in order. */
  noteLevels: Array<string | undefined>;
  /** Logged messages about the execution log, with their level. */
  messages: Array<{ level: string; message: string }>;
}

/**
 * Runs governed calls through the execution log in `dir` while a second process holds the write lock
 * for `holdMs`: 100 calls, lock, 100 calls, release, 100 calls (or lock first when
 * `lockBeforeFirstWrite`: the holder creates the file), then waits up to 5 s for 300 rows.
 */
export async function runLockScenario(dir: string, lockBeforeFirstWrite: boolean, holdMs = HOLD_MS): Promise<LockScenarioResult> {
  try {
    return await scenario(dir, lockBeforeFirstWrite, holdMs);
  } finally {
    if (holder && holder.exitCode === null) holder.kill("SIGKILL");
    holder = undefined;
  }
}

async function scenario(dir: string, lockBeforeFirstWrite: boolean, holdMs: number): Promise<LockScenarioResult> {
  const path = join(dir, "exec.db");
  const clock = timedClock();
  const preset = definePreset({ name: "t", description: "", plugins: () => [executionLog(), tools()] });
  const gov = await createGovernor({
    preset,
    cwd: dir,
    agentDir: dir,
    env: {},
    clock,
    layers: [],
    overrides: { executionLog: { dbPath: path, flushIntervalMs: 50 } },
  });
  const notes: Array<[string, string | undefined]> = [];
  const ui: UiBridge = { hasUI: true, notify: (m, level) => void notes.push([m, level]), setStatus: () => {}, confirm: async () => false };
  gov.attachSession("s", ui);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const calls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const status = (await gov.pipeline.callTool("echo", {})).status;
      if (status !== "SUCCESS") throw new Error(`a governed call failed (${status}) while the log was locked`);
      if (i % 10 === 9) await sleep(10);
    }
  };
  let lock: { lockedAt: number; released: Promise<number> };
  if (lockBeforeFirstWrite) {
    lock = await holdLock(path, holdMs); // the holder creates the file in rollback-journal mode and locks it
    await calls(100);
  } else {
    await calls(100);
    await sleep(150);
    if (countRows(path) !== 100) throw new Error(`expected 100 rows before the lock, found ${countRows(path)}`);
    lock = await holdLock(path, holdMs);
  }
  await calls(100); // all while locked
  const releasedAt = await lock.released;
  await calls(100); // after the lock cleared
  for (let waited = 0; countRows(path) !== 300 && waited < 5_000; waited += 25) await sleep(25);
  loop.disable();
  const rows = countRows(path);
  await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
  const max = (list: Array<{ ms: number }>) => Math.max(0, ...list.map((c) => c.ms));
  return {
    driver: probeSqlite().driver ?? "none",
    rows,
    // Every write attempt that met the lock (started while the other process held it).
    maxWhileLockedMs: max(clock.callbacks.filter((c) => c.at >= lock.lockedAt && c.at < releasedAt)),
    busyAttempts: clock.callbacks.filter((c) => c.at >= lock.lockedAt && c.at < releasedAt).length,
    whileLocked: clock.callbacks.filter((c) => c.at >= lock.lockedAt && c.at < releasedAt).map((c) => Math.round(c.ms * 10) / 10),
    // Any writer callback, including the one-time driver load, file creation and migration (fsync-bound).
    maxCallbackMs: max(clock.callbacks),
    loopMaxMs: loop.max / 1e6,
    noteLevels: notes.map(([, level]) => level),
    messages: gov.logs.filter((l) => /execution log/.test(l.message)).map((l) => ({ level: l.level, message: l.message })),
  };
}

/**
 * Every child process the managers started and have not yet seen exit. One `process.on("exit")`
 * hook kills them all with SIGKILL, so no server outlives the session even when the host exits
 * without closing the managers (the hook runs synchronously; SIGKILL needs no cooperation).
 * Note: a host killed by a signal it does not handle never runs 'exit' hooks; the children then see
 * EOF on stdin, which MCP servers treat as the end of the session.
 */
import type { ChildProcess } from "node:child_process";

const live = new Set<ChildProcess>();
let hooked = false;

function killAll(): void {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

/** Tracks `child` until it exits. */
export function registerChild(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
}

/** Children still tracked (tests, status). */
export function liveChildCount(): number {
  return live.size;
}

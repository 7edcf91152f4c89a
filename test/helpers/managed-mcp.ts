/** Shared set-up for the managed-server integration tests: a manager over a faulty real server, cleaned up after each test. */
import { afterEach, expect } from "vitest";
import { type ManagedMcpServerConfig, ManagedMcpServer, type ManagedServerEvent } from "../../lib/mcp/index.ts";
import { type FaultyOptions, type FaultyServer, faultyServer, waitGone } from "../fixtures/faulty-mcp/command.ts";
export { rejection } from "./rejection.ts";

const open: Array<{ server: ManagedMcpServer; faulty: FaultyServer }> = [];

afterEach(async () => {
  const all = open.splice(0);
  await Promise.all(all.map((o) => o.server.close()));
  for (const o of all) {
    expect(await waitGone(o.faulty.pids()), `no child of ${o.server.name} may outlive close()`).toEqual([]);
    o.faulty.cleanup();
  }
});

/** A managed server over the fault wrapper, with events recorded. Closed and checked for leftovers after the test. */
export function managed(
  fault: FaultyOptions,
  config: Partial<ManagedMcpServerConfig> = {},
): { server: ManagedMcpServer; faulty: FaultyServer; events: ManagedServerEvent[] } {
  const faulty = faultyServer(fault);
  const server = new ManagedMcpServer({ name: "everything", command: faulty.command, args: faulty.args, env: faulty.env, connectTimeoutMs: 5_000, ...config });
  const events: ManagedServerEvent[] = [];
  server.subscribe((e) => events.push(e));
  open.push({ server, faulty });
  return { server, faulty, events };
}

/** The text of a tools/call result. */
export function text(result: { content?: unknown }): string {
  return ((result.content as Array<{ type: string; text?: string }>) ?? []).map((b) => b.text ?? "").join("");
}

/** Resolves when `server` reaches `state` (or rejects after `ms`). */
export function reach(server: ManagedMcpServer, state: string, ms = 5_000): Promise<number> {
  const started = performance.now();
  if (server.state === state) return Promise.resolve(0);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`state ${state} not reached within ${ms} ms (now ${server.state})`));
    }, ms);
    const off = server.subscribe((e) => {
      if (e.type === "state" && e.to === state) {
        clearTimeout(timer);
        off();
        resolve(performance.now() - started);
      }
    });
  });
}

/**
 * INTERIM: a minimal KotaConnection on the MCP SDK client (lazy connect with a timeout, classified
 * errors, idempotent close), used only until the managed server of core/mcp (issue 3) is in the tree.
 * No reconnect backoff, heartbeat or replay: those belong to the connection manager, not here.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { classifyError, SpawnError, tail, TimeoutError } from "../../core/index.ts";
import type { KotaConnection, KotaLaunch, KotaServerState, RawToolResult } from "./connection.ts";

/** Creates an interim connection for `launch`. Nothing starts until the first call. */
export function interimConnection(launch: KotaLaunch): KotaConnection {
  let client: Client | undefined;
  let transport: StdioClientTransport | undefined;
  let connecting: Promise<Client> | undefined;
  let state: KotaServerState = "stopped";
  let lastError: string | undefined;
  let stderr = "";
  const listeners = new Set<(s: KotaServerState) => void>();
  const setState = (next: KotaServerState) => {
    if (next === state) return;
    state = next;
    for (const l of listeners) l(next);
  };
  const ctx = () => ({ subject: "KotaDB", command: launch.command, installHint: launch.installHint, ...(tail(stderr) ? { stderrTail: tail(stderr)! } : {}) });

  const connect = async (): Promise<Client> => {
    setState("starting");
    stderr = "";
    const t = new StdioClientTransport({ command: launch.command, args: launch.args, cwd: launch.cwd, env: launch.env, stderr: "pipe" });
    t.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const c = new Client({ name: "pi-governor-kota", version: "0.1.0" });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        c.connect(t),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TimeoutError(`KotaDB failed to start within ${launch.connectTimeoutMs / 1000}s`, launch.connectTimeoutMs, { agentMessage: `KotaDB did not start in time. Check that '${launch.command}' is installed and working; the user can run /kota restart.`, ...(tail(stderr) ? { stderrTail: tail(stderr)! } : {}) })), launch.connectTimeoutMs);
        }),
      ]);
    } catch (error) {
      await t.close().catch(() => {});
      setState("degraded");
      const classified = classifyError(error, ctx());
      lastError = classified.message;
      throw /connection closed/i.test(classified.message) ? new SpawnError(`KotaDB exited at start: ${tail(stderr) ?? "no stderr"}`, { agentMessage: "KotaDB could not start. Tell the user (see /kota status); continue without kota tools.", ...(tail(stderr) ? { stderrTail: tail(stderr)! } : {}) }) : classified;
    } finally {
      clearTimeout(timer);
    }
    t.onclose = () => {
      client = undefined;
      transport = undefined;
      if (state !== "closed") setState("stopped");
    };
    client = c;
    transport = t;
    setState("running");
    return c;
  };

  return {
    async callTool(name, args, options = {}): Promise<RawToolResult> {
      const c = client ?? (await (connecting ??= connect().finally(() => (connecting = undefined))));
      try {
        const result = await c.callTool({ name, arguments: args }, undefined, { ...(options.signal ? { signal: options.signal } : {}), timeout: 600_000 });
        return { content: (result.content ?? []) as RawToolResult["content"], ...(result.isError ? { isError: true } : {}) };
      } catch (error) {
        const classified = classifyError(error, ctx());
        if (classified.category === "connection_lost") lastError = classified.message;
        throw classified;
      }
    },
    state: () => state,
    lastError: () => lastError,
    async restart() {
      await transport?.close().catch(() => {});
      client = undefined;
      transport = undefined;
      lastError = undefined;
      setState("stopped");
    },
    async close() {
      setState("closed");
      await transport?.close().catch(() => {});
      client = undefined;
      transport = undefined;
    },
    onStateChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
